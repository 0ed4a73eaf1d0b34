"""IOBinding: onnxruntime's IO binding over ge's (ge_io_binding_*).

Inputs and outputs are bound by name to numpy arrays or to raw CPU buffers.
An output bound to a buffer is written there in place by the kernel that
makes it; one array bound as both a state's input and its output (an LSTM's
h and c) is updated in place. Unbound outputs come back in ge's own buffers.
"""
import ctypes

from ge import _tensors
from ge._feeds import invalid_argument
from ge._lib import check, dims, handle, lib

# onnxruntime's device names that ge runs on: host memory only.
_CPU = "cpu"


def _check_device(device_type, device_id):
    if str(device_type).lower() != _CPU or device_id != 0:
        raise invalid_argument(f"device {device_type!r}:{device_id} is not available; ge binds host memory: "
                               f"device_type 'cpu', device_id 0")


class _Wrapped:
    """A ge_tensor over a raw buffer that the caller keeps alive."""

    def __init__(self, element_type, shape, buffer_ptr):
        self.handle = handle()  # first: __del__ releases it even when wrapping fails
        shape_dims, rank = dims(shape)
        check(lib.ge_tensor_wrap(_tensors.ge_dtype(element_type), shape_dims, rank, ctypes.c_void_p(buffer_ptr),
                                 ctypes.byref(self.handle)))
        self.array = None

    def __del__(self):
        lib.ge_tensor_release(self.handle)


class IOBinding:
    """The bindings of one model's inputs and outputs; one run at a time.

    Made by InferenceSession.io_binding() (run it with
    session.run_with_iobinding) or Model.io_binding() (run it with run()).
    """

    def __init__(self, model):
        self._model = model
        self._handle = handle()
        check(lib.ge_io_binding_create(model._handle, ctypes.byref(self._handle)))
        self._output_names = [name for name, _, _ in model.tensor_infos("outputs")]
        self._inputs = {}   # name -> what keeps the bound memory alive
        self._outputs = {}  # name -> likewise

    def __del__(self):
        if hasattr(self, "_handle"):
            lib.ge_io_binding_release(self._handle)

    def bind_cpu_input(self, name, arr):
        """Binds a numpy array, shared (C-contiguous) or copied once (otherwise)."""
        self._bind_input(name, _tensors.Borrowed(arr))

    def bind_input(self, name, device_type, device_id, element_type, shape, buffer_ptr):
        """Binds a raw buffer of `shape` and numpy dtype `element_type` at address buffer_ptr."""
        _check_device(device_type, device_id)
        self._bind_input(name, _Wrapped(element_type, shape, buffer_ptr))

    def bind_output(self, name, device_type=_CPU, device_id=0, element_type=None, shape=None, buffer_ptr=None):
        """Binds output `name` to the raw buffer at buffer_ptr (with its
        element_type and shape), written in place; without buffer_ptr, the
        output comes back in a buffer of ge's own."""
        _check_device(device_type, device_id)
        if buffer_ptr is None:
            self._bind_output(name, None)
            return
        if element_type is None or shape is None:
            raise invalid_argument(f"output '{name}': a buffer_ptr needs its element_type and shape")
        self._bind_output(name, _Wrapped(element_type, shape, buffer_ptr))

    def bind_cpu_output(self, name, arr):
        """(ge) Binds output `name` to a C-contiguous, writable numpy array of
        the output's dtype and shape, written in place."""
        self._bind_output(name, _tensors.Borrowed(arr, writable=True))

    def clear_binding_inputs(self):
        for name in list(self._inputs):
            self._bind_input(name, None)

    def clear_binding_outputs(self):
        for name in list(self._outputs):
            self._bind_output(name, None)

    def synchronize_inputs(self):
        """Nothing to wait for: ge's inputs are host memory (onnxruntime's API)."""

    def synchronize_outputs(self):
        """Nothing to wait for: ge's runs return when their outputs are written (onnxruntime's API)."""

    def get_outputs(self):
        """The last run's outputs as numpy arrays, without copies: the arrays
        bound by bind_cpu_output themselves, arrays over other bound buffers,
        and arrays over ge's buffers for unbound outputs."""
        arrays = []
        for i in range(len(self._output_names)):
            out = handle()
            check(lib.ge_io_binding_output(self._handle, i, ctypes.byref(out)))
            arrays.append(_tensors.adopt(out))
        for i, name in enumerate(self._output_names):
            kept = self._outputs.get(name)
            if kept is not None and kept.array is not None:
                arrays[i] = kept.array
        return arrays

    def copy_outputs_to_cpu(self):
        """The last run's outputs as new numpy arrays (copies)."""
        return [array.copy() for array in self.get_outputs()]

    def run(self):
        check(lib.ge_io_binding_run(self._handle))

    def _bind_input(self, name, kept):
        self._bind(lib.ge_io_binding_bind_input, self._inputs, name, kept)

    def _bind_output(self, name, kept):
        self._bind(lib.ge_io_binding_bind_output, self._outputs, name, kept)

    def _bind(self, function, bound, name, kept):
        """Binds `kept` (None: unbinds) and keeps its memory alive while bound."""
        check(function(self._handle, _encode(name), None if kept is None else kept.handle))
        if kept is None:
            bound.pop(name, None)
        else:
            bound[name] = kept

def _encode(name):
    if not isinstance(name, str):
        raise TypeError(f"ge: a bound input or output is named by a str, got {type(name).__name__}")
    return name.encode()
