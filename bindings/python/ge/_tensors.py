"""numpy arrays to and from ge_tensor handles, without copies where the layout allows."""
import collections.abc
import ctypes

import numpy as np

from ge._lib import as_handle, check, handle, lib, shape_array

# ge_dtype value by numpy dtype (include/ge_c/ge_c.h); bfloat16 has no numpy type.
_GE_DTYPE = {
    np.dtype(np.float32): 0, np.dtype(np.float16): 1, np.dtype(np.int8): 2, np.dtype(np.int32): 3,
    np.dtype(np.uint8): 4, np.dtype(np.int16): 6, np.dtype(np.uint16): 7, np.dtype(np.uint32): 8,
    np.dtype(np.int64): 9, np.dtype(np.uint64): 10, np.dtype(np.float64): 11, np.dtype(np.bool_): 12,
}
_NP_DTYPE = {value: key for key, value in _GE_DTYPE.items()}

# The data of an empty array's tensor: ge_tensor_wrap refuses NULL; no byte of it is read.
_EMPTY = ctypes.c_char()

# ge_dtype values of the values that hold others (ONNX sequences and optionals).
SEQUENCE, OPTIONAL = 100, 101


def ge_dtype(dtype):
    """The ge_dtype value of a numpy dtype (or anything np.dtype() accepts), or
    of "sequence" / "optional"."""
    if isinstance(dtype, str) and dtype in ("sequence", "optional"):
        return SEQUENCE if dtype == "sequence" else OPTIONAL
    dtype = np.dtype(dtype)
    if dtype not in _GE_DTYPE:
        raise TypeError(f"ge: numpy dtype {dtype} has no ge dtype; ge takes {', '.join(map(str, _GE_DTYPE))}")
    return _GE_DTYPE[dtype]


def np_dtype(value):
    """The numpy dtype of a ge_dtype value."""
    if value not in _NP_DTYPE:
        raise TypeError(f"ge: ge dtype {value} has no numpy dtype")
    return _NP_DTYPE[value]


def np_dtype_or_none(value):
    """The numpy dtype of a ge_dtype value; None for one numpy lacks (bfloat16)."""
    return _NP_DTYPE.get(value)


class Borrowed:
    """A ge_tensor over a numpy array's memory; keeps the array alive with it."""

    def __init__(self, array, writable=False):
        self.handle = handle()  # first: __del__ releases it even when wrapping fails
        array = np.asarray(array)
        if writable and not (array.flags.c_contiguous and array.flags.writeable):
            raise ValueError("ge: an output array must be C-contiguous and writable")
        if not array.flags.c_contiguous:
            array = np.ascontiguousarray(array)
        self.array = array
        shape, rank = shape_array(array.shape)
        data = array.ctypes.data if array.nbytes > 0 else ctypes.addressof(_EMPTY)
        check(lib.ge_tensor_wrap(ge_dtype(array.dtype), shape, rank, data, ctypes.byref(self.handle)))

    def __del__(self):
        lib.ge_tensor_release(self.handle)


class Container:
    """A ge sequence (from a list of arrays) or optional (an array, or None)
    over borrowed arrays; keeps them alive with it. An empty sequence holds
    float32 elements, as onnxruntime's empty lists do."""

    def __init__(self, kind, value):
        self.handle = handle()  # first: __del__ releases it even when making it fails
        if kind == SEQUENCE and not isinstance(value, (list, tuple)):
            raise TypeError(f"ge: a sequence input takes a list of arrays, got {type(value).__name__}")
        self.parts = [Borrowed(v) for v in value] if kind == SEQUENCE else ([] if value is None else [Borrowed(value)])
        element_dtype = lib.ge_tensor_dtype(self.parts[0].handle) if self.parts else _GE_DTYPE[np.dtype(np.float32)]
        if kind == SEQUENCE:
            handles = (handle * max(len(self.parts), 1))(*[p.handle for p in self.parts])
            check(lib.ge_tensor_sequence_create(element_dtype, handles, len(self.parts), ctypes.byref(self.handle)))
        else:
            element = self.parts[0].handle if self.parts else None
            check(lib.ge_tensor_optional_create(element_dtype, element, ctypes.byref(self.handle)))

    def __del__(self):
        lib.ge_tensor_release(self.handle)


def borrow_all(arrays, kinds=None):
    """Borrowed tensors for a run's input arrays and the C array of their
    handles. `kinds`: the inputs' ge dtypes, so that a sequence input takes a
    list and an optional one an array or None."""
    if not isinstance(arrays, (list, tuple)):
        raise TypeError(f"ge: the inputs of a run are a list of arrays in the order of the model's inputs, got "
                        f"{type(arrays).__name__}" + (
                            "; for a dict {input name: array} use ge.InferenceSession(path).run(None, input_feed)"
                            if isinstance(arrays, collections.abc.Mapping) else "; write [array]"))
    borrowed = []
    for i, array in enumerate(arrays):
        try:
            kind = kinds[i] if kinds is not None and i < len(kinds) else None
            borrowed.append(Container(kind, array) if kind in (SEQUENCE, OPTIONAL) else Borrowed(array))
        except TypeError as e:
            raise TypeError(f"ge: input #{i}: {str(e).removeprefix('ge: ')}") from None
    handles = (handle * max(len(borrowed), 1))(*[b.handle for b in borrowed])
    return borrowed, handles


class _Owner:
    """Releases a ge_tensor when the numpy array over its buffer goes away."""

    def __init__(self, tensor):
        self.tensor = tensor

    def __del__(self):
        lib.ge_tensor_release(self.tensor)


def adopt(tensor):
    """A numpy array over a ge-owned tensor's buffer (no copy); takes over the
    handle. A sequence becomes a list of them, an optional one of them or None."""
    tensor = as_handle(tensor)
    if lib.ge_tensor_dtype(tensor) in (SEQUENCE, OPTIONAL):
        return _adopt_container(tensor)
    try:
        dtype = np_dtype(lib.ge_tensor_dtype(tensor))
        shape = tuple(lib.ge_tensor_dims(tensor)[:lib.ge_tensor_rank(tensor)])
        nbytes = lib.ge_tensor_nbytes(tensor)
    except BaseException:
        lib.ge_tensor_release(tensor)
        raise
    if nbytes == 0:
        lib.ge_tensor_release(tensor)
        return np.empty(shape, dtype)
    buffer = (ctypes.c_uint8 * nbytes).from_address(lib.ge_tensor_data(tensor))
    buffer._owner = _Owner(tensor)
    return np.ndarray(shape, dtype, buffer)


def _adopt_container(tensor):
    try:
        elements = []
        for i in range(lib.ge_tensor_dims(tensor)[0]):
            element = handle()
            check(lib.ge_tensor_element(tensor, i, ctypes.byref(element)))
            elements.append(adopt(element))
        kind = lib.ge_tensor_dtype(tensor)
    finally:
        lib.ge_tensor_release(tensor)
    if kind == SEQUENCE:
        return elements
    return elements[0] if elements else None


def run_outputs(count, outputs):
    """The output slots for a run (None: ge allocates) and what keeps caller arrays alive."""
    if outputs is not None and len(outputs) != count:
        raise ValueError(f"ge: {len(outputs)} output arrays for {count} outputs")
    keep = [None if a is None else Borrowed(a, writable=True) for a in (outputs or [None] * count)]
    slots = (handle * max(count, 1))(*[None if k is None else k.handle for k in keep])
    return slots, keep


def collect_outputs(slots, keep):
    """The run's results: new arrays over ge-owned tensors, or the caller's arrays."""
    return [adopt(slots[i]) if k is None else k.array for i, k in enumerate(keep)]
