"""Compiled models: compile, run (sync and async), .gem save and load."""
import concurrent.futures
import ctypes
import os
import threading

from ge import _tensors
from ge import _options
from ge._lib import RUN_CALLBACK, MemorySummary, RunStats, TensorInfo, as_handle, check, handle, lib
from ge.errors import error_for
from ge.graph import Graph, load_onnx
from ge.io_binding import IOBinding

_INFO_FUNCTIONS = {"inputs": (lib.ge_model_input_count, lib.ge_model_input_info),
                   "outputs": (lib.ge_model_output_count, lib.ge_model_output_info)}


class Model:
    """A compiled, immutable model; run() may be called from many threads at once."""

    def __init__(self, pointer):
        self._handle = as_handle(pointer)
        self._output_count = lib.ge_model_output_count(self._handle)  # a model never changes
        self._input_kinds = [dtype for _, dtype, _ in self.tensor_infos("inputs")]

    def __del__(self):
        if hasattr(self, "_handle"):
            lib.ge_model_release(self._handle)  # waits for queued asynchronous runs

    def tensor_infos(self, kind):
        """[(name, ge_dtype value, shape)] of the "inputs" or "outputs", -1 for
        dims known only at run time; the ge_dtype value, unlike a numpy dtype,
        also names bfloat16."""
        return [info[:3] for info in self._tensor_infos(kind)]

    def dim_names(self, kind="inputs"):
        """Per input, the names its dims have in the model (ONNX dim_param,
        "batch"; "" for a dim without one), or None when none is named. Dims
        named alike must have one size in a run. Per output (kind "outputs")
        of a model with dims known only at run time: the expression over those
        names that gives each dim ("sequence + past"; "" for a constant dim or
        one that depends on data), or None."""
        return [info[3] for info in self._tensor_infos(kind)]

    def _tensor_infos(self, kind):
        count_function, info_function = _INFO_FUNCTIONS[kind]
        result = []
        for i in range(count_function(self._handle)):
            info = TensorInfo(struct_size=ctypes.sizeof(TensorInfo))
            check(info_function(self._handle, i, ctypes.byref(info)))
            names = None
            if info.struct_size >= TensorInfo.dim_names.offset + ctypes.sizeof(ctypes.c_void_p) and info.dim_names:
                names = [info.dim_names[d].decode() for d in range(info.rank)]
            result.append((info.name.decode(), info.dtype, tuple(info.dims[d] for d in range(info.rank)), names))
        return result

    @property
    def inputs(self):
        """[(name, numpy dtype, shape)], -1 for dims known only at run time."""
        return [(name, _tensors.np_dtype(dtype), shape) for name, dtype, shape in self.tensor_infos("inputs")]

    @property
    def outputs(self):
        return [(name, _tensors.np_dtype(dtype), shape) for name, dtype, shape in self.tensor_infos("outputs")]

    @property
    def memory(self):
        """The memory plan in bytes (const, arena, no_reuse, lower_bound), dynamic, placement_strategy."""
        summary = MemorySummary(struct_size=ctypes.sizeof(MemorySummary))
        check(lib.ge_model_memory_summary(self._handle, ctypes.byref(summary)))
        return {"const_bytes": summary.const_bytes, "arena_bytes": summary.arena_bytes,
                "no_reuse_bytes": summary.no_reuse_bytes, "lower_bound_bytes": summary.lower_bound_bytes,
                "dynamic": bool(summary.dynamic), "placement_strategy": summary.placement_strategy.decode()}

    @property
    def run_stats(self):
        """What the runs so far did besides kernels: runs, planned_runs,
        node_by_node_runs, plans_compiled, kernels_built, buffer_allocations,
        shape_inferences."""
        stats = RunStats(struct_size=ctypes.sizeof(RunStats))
        check(lib.ge_model_run_stats(self._handle, ctypes.byref(stats)))
        return {name: getattr(stats, name) for name, _ in RunStats._fields_ if name != "struct_size"}

    def run(self, inputs, outputs=None):
        """Runs on numpy arrays (in the order of `inputs`); returns the output
        arrays. C-contiguous inputs are not copied. Without `outputs` the
        results are new arrays over ge's buffers; with it (C-contiguous arrays
        of the outputs' dtypes and shapes) they are written into those."""
        borrowed, in_handles = _tensors.borrow_all(inputs, self._input_kinds)
        slots, keep = _tensors.run_outputs(self._output_count, outputs)
        check(lib.ge_model_run(self._handle, in_handles, len(borrowed), slots, self._output_count))
        return _tensors.collect_outputs(slots, keep)

    def run_async(self, inputs):
        """Queues a run; returns a concurrent.futures.Future of the output
        arrays. The input arrays must stay unchanged until it is done."""
        future = concurrent.futures.Future()
        borrowed, in_handles = _tensors.borrow_all(inputs, self._input_kinds)
        key = _pending.add(future, borrowed)
        status = lib.ge_model_run_async(self._handle, in_handles, len(borrowed), _on_done, key)
        if status != 0:
            _pending.take(key)
            check(status)
        return future

    def io_binding(self):
        """A ge.IOBinding of this model's inputs and outputs; run it with its run()."""
        return IOBinding(self)

    def save(self, path):
        """Writes a .gem file (whole or not at all)."""
        check(lib.ge_model_save(self._handle, os.fsencode(path)))


class _Pending:
    """The futures (and borrowed inputs) of queued asynchronous runs, by key."""

    def __init__(self):
        self._lock = threading.Lock()
        self._next = 1
        self._runs = {}

    def add(self, future, borrowed):
        with self._lock:
            key = self._next
            self._next += 1
            self._runs[key] = (future, borrowed)
            return key

    def take(self, key):
        with self._lock:
            return self._runs.pop(key)


_pending = _Pending()


@RUN_CALLBACK
def _on_done(key, status, message, outputs, count):
    # Signalling the future is the last thing done here: the inputs' tensors are
    # released first, so no Python work is left on this thread once the caller
    # wakes and, maybe, ends the interpreter.
    future = _pending.take(key)[0]
    if status != 0:
        future.set_exception(error_for(status, message.decode("utf-8", "replace")))
        return
    # The callback owns the outputs; an exception must not be lost in ctypes.
    arrays = []
    try:
        for i in range(count):
            arrays.append(_tensors.adopt(outputs[i]))
    except BaseException as e:  # adopt released the tensor it failed on
        for j in range(len(arrays) + 1, count):
            lib.ge_tensor_release(outputs[j])
        future.set_exception(e)
        return
    future.set_result(arrays)


def compile(graph, options=None):
    """Compiles a graph with `ge.*` options (a dict; docs/options.md). The
    graph is a ge.Graph, or the path or bytes of an ONNX model (imported first)."""
    if isinstance(graph, (str, os.PathLike, bytes, bytearray, memoryview)):
        graph = load_onnx(graph)
    elif not isinstance(graph, Graph):
        raise TypeError(f"ge: compile takes a ge.Graph or the path or bytes of an ONNX model, got "
                        f"{type(graph).__name__}; ge.InferenceSession(path) compiles and runs a model the way "
                        f"onnxruntime does")
    keys, values, count = _options.option_arrays(options)
    out = handle()
    check(lib.ge_compile(graph._handle, keys, values, count, ctypes.byref(out)))
    return Model(out)


def load(model, options=None):
    """Loads a .gem file from a path or from bytes; options may override its run-time options."""
    keys, values, count = _options.option_arrays(options)
    out = handle()
    if isinstance(model, (bytes, bytearray, memoryview)):
        data = bytes(model)
        check(lib.ge_model_load_memory(data, len(data), keys, values, count, ctypes.byref(out)))
    else:
        check(lib.ge_model_load(os.fsencode(model), keys, values, count, ctypes.byref(out)))
    return Model(out)
