"""numpy arrays to and from ge_tensor handles, without copies where the layout allows."""
import ctypes

import numpy as np

from ge._lib import as_handle, check, dims, handle, lib

# ge_dtype value by numpy dtype (include/ge_c/ge_c.h); bfloat16 has no numpy type.
_GE_DTYPE = {
    np.dtype(np.float32): 0, np.dtype(np.float16): 1, np.dtype(np.int8): 2, np.dtype(np.int32): 3,
    np.dtype(np.uint8): 4, np.dtype(np.int16): 6, np.dtype(np.uint16): 7, np.dtype(np.uint32): 8,
    np.dtype(np.int64): 9, np.dtype(np.uint64): 10, np.dtype(np.float64): 11, np.dtype(np.bool_): 12,
}
_NP_DTYPE = {value: key for key, value in _GE_DTYPE.items()}


def ge_dtype(dtype):
    """The ge_dtype value of a numpy dtype (or anything np.dtype() accepts)."""
    dtype = np.dtype(dtype)
    if dtype not in _GE_DTYPE:
        raise TypeError(f"ge: no ge dtype for numpy dtype {dtype}")
    return _GE_DTYPE[dtype]


def np_dtype(value):
    """The numpy dtype of a ge_dtype value."""
    if value not in _NP_DTYPE:
        raise TypeError(f"ge: ge dtype {value} has no numpy dtype")
    return _NP_DTYPE[value]


class Borrowed:
    """A ge_tensor over a numpy array's memory; keeps the array alive with it."""

    def __init__(self, array, writable=False):
        array = np.asarray(array)
        if writable and not (array.flags.c_contiguous and array.flags.writeable):
            raise ValueError("ge: an output array must be C-contiguous and writable")
        self.array = np.ascontiguousarray(array)  # no copy when already contiguous
        shape, rank = dims(self.array.shape)
        self.handle = handle()
        data = self.array.ctypes.data if self.array.nbytes > 0 else ctypes.addressof(ctypes.c_char())
        check(lib.ge_tensor_wrap(ge_dtype(self.array.dtype), shape, rank, data, ctypes.byref(self.handle)))

    def __del__(self):
        lib.ge_tensor_release(self.handle)


def borrow_all(arrays):
    """Borrowed tensors for arrays and the C array of their handles."""
    borrowed = [Borrowed(a) for a in arrays]
    handles = (handle * max(len(borrowed), 1))(*[b.handle for b in borrowed])
    return borrowed, handles


class _Owner:
    """Releases a ge_tensor when the numpy array over its buffer goes away."""

    def __init__(self, tensor):
        self.tensor = tensor

    def __del__(self):
        lib.ge_tensor_release(self.tensor)


def adopt(tensor):
    """A numpy array over a ge-owned tensor's buffer (no copy); takes over the handle."""
    tensor = as_handle(tensor)
    try:
        dtype = np_dtype(lib.ge_tensor_dtype(tensor))
        rank = lib.ge_tensor_rank(tensor)
        dims_pointer = lib.ge_tensor_dims(tensor)
        shape = tuple(dims_pointer[i] for i in range(rank))
        nbytes = lib.ge_tensor_nbytes(tensor)
    except BaseException:
        lib.ge_tensor_release(tensor)
        raise
    if nbytes == 0:
        lib.ge_tensor_release(tensor)
        return np.empty(shape, dtype)
    buffer = (ctypes.c_uint8 * nbytes).from_address(lib.ge_tensor_data(tensor))
    buffer._owner = _Owner(tensor)
    return np.frombuffer(buffer, dtype).reshape(shape)


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
