"""Loads libge_c.so and declares the C functions of include/ge_c/ge_c.h."""
import ctypes
import functools
from ctypes import POINTER, c_char_p, c_float, c_int, c_int32, c_int64, c_size_t, c_uint32, c_void_p

from ge import _find_library, _openmp_wait
from ge.errors import error_for

# The ABI major this package is written for (GE_C_ABI_MAJOR) and the least minor it needs.
ABI_MAJOR = 0
ABI_MINOR = 4

_openmp_wait.bound_spinning()
lib = _find_library.load(f"libge_c.so.{ABI_MAJOR}")

handle = c_void_p
strings = POINTER(c_char_p)
RUN_CALLBACK = ctypes.CFUNCTYPE(None, c_void_p, c_int, c_char_p, POINTER(c_void_p), c_size_t)


class TensorInfo(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("name", c_char_p), ("dtype", c_int), ("rank", c_size_t),
                ("dims", POINTER(c_int64)), ("dim_names", POINTER(c_char_p))]


class MemorySummary(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("const_bytes", ctypes.c_uint64), ("arena_bytes", ctypes.c_uint64),
                ("no_reuse_bytes", ctypes.c_uint64), ("lower_bound_bytes", ctypes.c_uint64), ("dynamic", c_int32),
                ("placement_strategy", c_char_p)]


class RunStats(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("runs", ctypes.c_uint64), ("planned_runs", ctypes.c_uint64),
                ("node_by_node_runs", ctypes.c_uint64), ("plans_compiled", ctypes.c_uint64),
                ("kernels_built", ctypes.c_uint64), ("buffer_allocations", ctypes.c_uint64),
                ("shape_inferences", ctypes.c_uint64)]


_PROTOTYPES = {
    # name: (result, argument types); result c_int is a ge_status
    "ge_last_error": (c_char_p, []),
    "ge_version": (c_char_p, []),
    "ge_abi_version": (None, [POINTER(c_uint32), POINTER(c_uint32)]),
    "ge_tensor_create": (c_int, [c_int, POINTER(c_int64), c_size_t, POINTER(handle)]),
    "ge_tensor_wrap": (c_int, [c_int, POINTER(c_int64), c_size_t, c_void_p, POINTER(handle)]),
    "ge_tensor_release": (None, [handle]),
    "ge_tensor_dtype": (c_int, [handle]),
    "ge_tensor_rank": (c_size_t, [handle]),
    "ge_tensor_dims": (POINTER(c_int64), [handle]),
    "ge_tensor_nbytes": (c_size_t, [handle]),
    "ge_tensor_data": (c_void_p, [handle]),
    "ge_tensor_sequence_create": (c_int, [c_int, POINTER(handle), c_size_t, POINTER(handle)]),
    "ge_tensor_optional_create": (c_int, [c_int, handle, POINTER(handle)]),
    "ge_tensor_element": (c_int, [handle, c_size_t, POINTER(handle)]),
    "ge_attrs_create": (c_int, [POINTER(handle)]),
    "ge_attrs_release": (None, [handle]),
    "ge_attrs_set_int": (c_int, [handle, c_char_p, c_int64]),
    "ge_attrs_set_float": (c_int, [handle, c_char_p, c_float]),
    "ge_attrs_set_bool": (c_int, [handle, c_char_p, c_int]),
    "ge_attrs_set_string": (c_int, [handle, c_char_p, c_char_p]),
    "ge_attrs_set_dtype": (c_int, [handle, c_char_p, c_int]),
    "ge_attrs_set_ints": (c_int, [handle, c_char_p, POINTER(c_int64), c_size_t]),
    "ge_attrs_set_floats": (c_int, [handle, c_char_p, POINTER(c_float), c_size_t]),
    "ge_attrs_set_tensor": (c_int, [handle, c_char_p, handle]),
    "ge_graph_create": (c_int, [c_char_p, POINTER(handle)]),
    "ge_graph_release": (None, [handle]),
    "ge_graph_add_input": (c_int, [handle, c_char_p, c_int, POINTER(c_int64), c_size_t, POINTER(handle)]),
    "ge_graph_add_constant": (c_int, [handle, c_char_p, handle, POINTER(handle)]),
    "ge_graph_add_node": (c_int, [handle, c_char_p, c_char_p, POINTER(handle), c_size_t, handle, c_size_t,
                                  POINTER(handle)]),
    "ge_graph_set_outputs": (c_int, [handle, POINTER(handle), c_size_t]),
    "ge_value_name": (c_char_p, [handle]),
    "ge_value_dtype": (c_int, [handle]),
    "ge_value_rank": (c_size_t, [handle]),
    "ge_value_dims": (POINTER(c_int64), [handle]),
    "ge_onnx_import_file": (c_int, [c_char_p, POINTER(handle)]),
    "ge_onnx_import_memory": (c_int, [c_void_p, c_size_t, c_char_p, POINTER(handle)]),
    "ge_compile": (c_int, [handle, strings, strings, c_size_t, POINTER(handle)]),
    "ge_model_release": (None, [handle]),
    "ge_model_save": (c_int, [handle, c_char_p]),
    "ge_model_load": (c_int, [c_char_p, strings, strings, c_size_t, POINTER(handle)]),
    "ge_model_load_memory": (c_int, [c_void_p, c_size_t, strings, strings, c_size_t, POINTER(handle)]),
    "ge_model_input_count": (c_size_t, [handle]),
    "ge_model_output_count": (c_size_t, [handle]),
    "ge_model_input_info": (c_int, [handle, c_size_t, POINTER(TensorInfo)]),
    "ge_model_output_info": (c_int, [handle, c_size_t, POINTER(TensorInfo)]),
    "ge_model_memory_summary": (c_int, [handle, POINTER(MemorySummary)]),
    "ge_model_run_stats": (c_int, [handle, POINTER(RunStats)]),
    "ge_model_run": (c_int, [handle, POINTER(handle), c_size_t, POINTER(handle), c_size_t]),
    "ge_model_run_async": (c_int, [handle, POINTER(handle), c_size_t, RUN_CALLBACK, c_void_p]),
    "ge_io_binding_create": (c_int, [handle, POINTER(handle)]),
    "ge_io_binding_release": (None, [handle]),
    "ge_io_binding_bind_input": (c_int, [handle, c_char_p, handle]),
    "ge_io_binding_bind_output": (c_int, [handle, c_char_p, handle]),
    "ge_io_binding_run": (c_int, [handle]),
    "ge_io_binding_output": (c_int, [handle, c_size_t, POINTER(handle)]),
    "ge_session_create": (c_int, [strings, strings, c_size_t, POINTER(handle)]),
    "ge_session_release": (None, [handle]),
    "ge_session_add_graph": (c_int, [handle, c_uint32, handle, strings, strings, c_size_t]),
    "ge_session_compile_graph": (c_int, [handle, c_uint32, POINTER(handle)]),
    "ge_session_run_graph": (c_int, [handle, c_uint32, POINTER(handle), c_size_t, POINTER(handle), c_size_t]),
    "ge_plugin_load": (c_int, [c_char_p]),
}

# Calls that are quick and never wait keep the GIL (ctypes.PyDLL functions):
# cheaper than dropping and retaking it on every tensor of a run, and a run
# thread that releases tensors in a callback never needs to retake the GIL,
# which Python answers with pthread_exit (aborting ge's C++ thread) once the
# interpreter is finalizing. Compiling, loading, running and releasing a model
# (which waits for its runs) drop the GIL as usual.
_DROP_GIL = {"ge_onnx_import_file", "ge_onnx_import_memory", "ge_compile", "ge_model_release", "ge_model_save",
             "ge_model_load", "ge_model_load_memory", "ge_model_run", "ge_model_run_async", "ge_io_binding_run", "ge_session_create",
             "ge_session_release", "ge_session_add_graph", "ge_session_compile_graph", "ge_session_run_graph",
             "ge_plugin_load", "ge_tensor_create"}
_keeping_gil = ctypes.PyDLL(lib._name, handle=lib._handle)

for _name, (_result, _arguments) in _PROTOTYPES.items():
    _function = getattr(lib if _name in _DROP_GIL else _keeping_gil, _name)
    _function.restype = _result
    _function.argtypes = _arguments
    setattr(lib, _name, _function)


def as_handle(pointer):
    """A c_void_p for a handle given as c_void_p, int or None."""
    return pointer if isinstance(pointer, handle) else handle(pointer)


def check(status):
    """Raises the exception for a failed call, with the C message."""
    if status != 0:
        raise error_for(status, lib.ge_last_error().decode("utf-8", "replace"))


def version():
    """The runtime version of the loaded library ("0.1.0")."""
    return lib.ge_version().decode()


def abi_version():
    """(major, minor) of the C ABI the loaded library implements."""
    major, minor = c_uint32(), c_uint32()
    lib.ge_abi_version(ctypes.byref(major), ctypes.byref(minor))
    return major.value, minor.value


if abi_version()[0] != ABI_MAJOR or abi_version()[1] < ABI_MINOR:
    raise ImportError(f"ge: the loaded libge_c implements ABI {abi_version()}, this package needs "
                      f"{ABI_MAJOR}.{ABI_MINOR} or a later minor")


def dims(shape):
    """(int64 array, rank) for a shape of ints (a list, numpy ints...)."""
    return shape_array(tuple(int(d) for d in shape))


@functools.lru_cache(maxsize=256)
def shape_array(shape):
    """(int64 array, rank) for a tuple of Python ints. Cached, as every run
    passes its shapes: the arrays are shared, which is safe because the C side
    only reads them."""
    return (c_int64 * max(len(shape), 1))(*shape), len(shape)
