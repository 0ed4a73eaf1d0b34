"""Graphs: built op by op (Graph) or imported from ONNX (load_onnx)."""
import ctypes
import os

import numpy as np

from ge import _tensors
from ge._lib import as_handle, check, dims, handle, lib


class Value:
    """An edge of a graph: a graph input, a constant or a node output."""

    def __init__(self, graph, pointer):
        self._graph = graph  # the value lives as long as its graph
        self._handle = as_handle(pointer)

    @property
    def name(self):
        return lib.ge_value_name(self._handle).decode()

    @property
    def dtype(self):
        return _tensors.np_dtype(lib.ge_value_dtype(self._handle))

    @property
    def shape(self):
        """A tuple with -1 for dims known only at run time; None when even the rank is unknown."""
        rank = lib.ge_value_rank(self._handle)
        if rank == ctypes.c_size_t(-1).value:
            return None
        pointer = lib.ge_value_dims(self._handle)
        return tuple(pointer[i] for i in range(rank))

    def __repr__(self):
        return f"ge.Value({self.name!r}, {self.dtype}, {self.shape})"


def _set_attr(attrs, name, value):
    key = name.encode()
    if isinstance(value, (bool, np.bool_)):
        check(lib.ge_attrs_set_bool(attrs, key, int(bool(value))))
    elif isinstance(value, (int, np.integer)):
        check(lib.ge_attrs_set_int(attrs, key, int(value)))
    elif isinstance(value, (float, np.floating)):
        check(lib.ge_attrs_set_float(attrs, key, float(value)))
    elif isinstance(value, str):
        check(lib.ge_attrs_set_string(attrs, key, value.encode()))
    elif isinstance(value, (np.dtype, type)):
        check(lib.ge_attrs_set_dtype(attrs, key, _tensors.ge_dtype(value)))
    elif isinstance(value, np.ndarray):
        tensor = _tensors.Borrowed(value)  # copied by ge
        check(lib.ge_attrs_set_tensor(attrs, key, tensor.handle))
    elif isinstance(value, (list, tuple)) and all(isinstance(v, (int, np.integer)) for v in value):
        values = (ctypes.c_int64 * max(len(value), 1))(*[int(v) for v in value])
        check(lib.ge_attrs_set_ints(attrs, key, values, len(value)))
    elif isinstance(value, (list, tuple)) and all(isinstance(v, (int, float, np.number)) for v in value):
        values = (ctypes.c_float * max(len(value), 1))(*[float(v) for v in value])
        check(lib.ge_attrs_set_floats(attrs, key, values, len(value)))
    else:
        raise TypeError(f"ge: attribute '{name}' has a type ge cannot pass: {type(value).__name__}")


class Graph:
    """A graph built op by op; ops and attributes are those of docs/op-set.md.

    Each op is checked when added (dtype and shape inference), so a mistake
    raises at the call that made it, naming the node and op.
    """

    def __init__(self, name="graph", _handle=None):
        self._handle = handle()
        if _handle is not None:
            self._handle = _handle
        else:
            check(lib.ge_graph_create(name.encode(), ctypes.byref(self._handle)))

    def __del__(self):
        if hasattr(self, "_handle"):
            lib.ge_graph_release(self._handle)

    def input(self, name, dtype, shape):
        """A graph input; -1 dims are known at run time only."""
        out = handle()
        shape_array, rank = dims(shape)
        check(lib.ge_graph_add_input(self._handle, name.encode(), _tensors.ge_dtype(dtype), shape_array, rank,
                                     ctypes.byref(out)))
        return Value(self, out)

    def constant(self, name, array):
        """A constant with a copy of the array."""
        out = handle()
        tensor = _tensors.Borrowed(array)
        check(lib.ge_graph_add_constant(self._handle, name.encode(), tensor.handle, ctypes.byref(out)))
        return Value(self, out)

    def op(self, op_type, inputs, attrs=None, num_outputs=1, name=None):
        """Adds a node; returns its Value, or the list of them when num_outputs != 1.
        An input may be None (an absent optional input)."""
        attr_handle = handle()
        check(lib.ge_attrs_create(ctypes.byref(attr_handle)))
        try:
            for key, value in (attrs or {}).items():
                _set_attr(attr_handle, key, value)
            in_array = (handle * max(len(inputs), 1))(*[None if v is None else v._handle for v in inputs])
            out_array = (handle * max(num_outputs, 1))()
            check(lib.ge_graph_add_node(self._handle, op_type.encode(), None if name is None else name.encode(),
                                        in_array, len(inputs), attr_handle, num_outputs, out_array))
        finally:
            lib.ge_attrs_release(attr_handle)
        values = [Value(self, out_array[i]) for i in range(num_outputs)]
        return values[0] if num_outputs == 1 else values

    def output(self, *values):
        """Appends graph outputs."""
        array = (handle * max(len(values), 1))(*[v._handle for v in values])
        check(lib.ge_graph_set_outputs(self._handle, array, len(values)))


def load_onnx(model, base_dir=None):
    """Imports an ONNX model from a path or from bytes (external data then
    resolved in base_dir, refused without one)."""
    out = handle()
    if isinstance(model, (bytes, bytearray, memoryview)):
        data = bytes(model)
        check(lib.ge_onnx_import_memory(data, len(data), None if base_dir is None else os.fsencode(base_dir),
                                        ctypes.byref(out)))
    else:
        check(lib.ge_onnx_import_file(os.fsencode(model), ctypes.byref(out)))
    return Graph(_handle=out)
