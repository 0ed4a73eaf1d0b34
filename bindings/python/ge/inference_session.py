"""InferenceSession: onnxruntime's Python API over a ge Model, so that a
script written for onnxruntime runs with `import ge as ort`."""
import os
import stat

from ge import providers as _providers
from ge._feeds import FeedLayout, invalid_argument
from ge._tensors import np_dtype_or_none
from ge.model import compile, load
from ge.node_arg import NodeArg

# Bytes 4..7 of a .gem file (a FlatBuffers file identifier, docs/model-file.md).
_GEM_IDENTIFIER = b"GEM1"


def _is_gem(path_or_bytes):
    if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
        return bytes(path_or_bytes[4:8]) == _GEM_IDENTIFIER
    try:
        # Opening a FIFO would wait for a writer: only a regular file is peeked at.
        if not stat.S_ISREG(os.stat(path_or_bytes).st_mode):
            return False  # the library refuses it by name
        with open(path_or_bytes, "rb") as f:
            return f.read(8)[4:8] == _GEM_IDENTIFIER
    except OSError:
        return False  # the ONNX import reports the file it cannot read


def _open_model(path_or_bytes, options):
    """A .gem is loaded as compiled; anything else is imported as ONNX and compiled."""
    if not isinstance(path_or_bytes, (str, os.PathLike, bytes, bytearray, memoryview)):
        raise TypeError(f"ge: InferenceSession takes the path (str or os.PathLike) or the bytes of an ONNX or "
                        f".gem model, got {type(path_or_bytes).__name__}")
    if _is_gem(path_or_bytes):
        return load(path_or_bytes, options)
    return compile(path_or_bytes, options)


def _session_options(sess_options, kwargs):
    """The ge options: `sess_options` (onnxruntime's second positional argument)
    or the `options` keyword, a dict of ge.* options (docs/options.md)."""
    options = kwargs.pop("options", None)
    if kwargs:
        raise TypeError(f"ge: InferenceSession got unexpected keyword arguments {sorted(kwargs)}")
    if sess_options is not None and options is not None:
        raise TypeError("ge: give the ge options once, as options={...} (or as sess_options)")
    options = sess_options if options is None else options
    if options is not None and not isinstance(options, dict):
        raise TypeError(f"ge: the session options are a dict of ge.* options such as "
                        f"{{'ge.exec.intraOpThreads': 1}} (docs/options.md), got {type(options).__name__}")
    return options


class InferenceSession:
    """A compiled model with onnxruntime.InferenceSession's methods.

    `path_or_bytes`: the path or bytes of an ONNX model (imported and compiled)
    or of a .gem file (loaded as compiled). Options: a dict of ge.* options
    (docs/options.md) as `options=` or as `sess_options`, values str, bool, int
    or float. `providers`: onnxruntime's names; ge has CPUExecutionProvider.
    `model` is the ge.Model, for what onnxruntime lacks (memory plan, save).
    """

    def __init__(self, path_or_bytes, sess_options=None, providers=None, provider_options=None, **kwargs):
        _providers.check_providers(providers, provider_options)
        self.model = _open_model(path_or_bytes, _session_options(sess_options, kwargs))
        inputs = self.model.tensor_infos("inputs")
        outputs = self.model.tensor_infos("outputs")
        self._inputs = [NodeArg(*info, names) for info, names in zip(inputs, self.model.dim_names())]
        self._outputs = [NodeArg(*info, names) for info, names in zip(outputs, self.model.dim_names("outputs"))]
        self._feeds = FeedLayout([name for name, _, _ in inputs], [dtype for _, dtype, _ in inputs],
                                 [np_dtype_or_none(dtype) for _, dtype, _ in inputs])
        self._output_index = {name: i for i, (name, _, _) in enumerate(outputs)}

    def get_inputs(self):
        return list(self._inputs)

    def get_outputs(self):
        return list(self._outputs)

    def get_providers(self):
        return [_providers.CPU]

    def get_provider_options(self):
        return {_providers.CPU: {}}

    def run(self, output_names, input_feed=None, run_options=None):
        """The outputs named in output_names (None: all, in model order) as
        numpy arrays, for input_feed, a dict {input name: array}. (input_feed
        defaults to None only so that run(feed) gets an explaining TypeError.)"""
        selection = self._selection(output_names, input_feed, run_options, "run")
        results = self.model.run(self._feeds.arrays(input_feed))
        return results if selection is None else [results[i] for i in selection]

    def run_async(self, output_names, input_feed=None, callback=None, user_data=None, run_options=None):
        """Queues a run and returns; callback(results, user_data, err) is then
        called on a ge run thread with the outputs as run() returns them and err
        "", or with [] and the error message. Bad arguments raise here."""
        selection = self._selection(output_names, input_feed, run_options, "run_async")
        if not callable(callback):
            raise TypeError(f"ge: run_async(output_names, input_feed, callback, user_data): callback must be "
                            f"callable, got {type(callback).__name__}")
        future = self.model.run_async(self._feeds.arrays(input_feed))

        def done(finished):
            error = finished.exception()
            if error is not None:
                callback([], user_data, str(error))
                return
            results = finished.result()
            callback(results if selection is None else [results[i] for i in selection], user_data, "")

        future.add_done_callback(done)

    def io_binding(self):
        """A ge.IOBinding of the model's inputs and outputs (onnxruntime's io_binding)."""
        return self.model.io_binding()

    def run_with_iobinding(self, iobinding, run_options=None):
        """Runs with the bound inputs, writing bound outputs in place; the
        results are then iobinding.get_outputs() / copy_outputs_to_cpu()."""
        if run_options is not None:
            raise TypeError("ge: run_options are not supported; pass None")
        if getattr(iobinding, "_model", None) is not self.model:
            raise TypeError("ge: run_with_iobinding takes an IOBinding made by this session's io_binding()")
        iobinding.run()

    def _selection(self, output_names, input_feed, run_options, method):
        """The output indices output_names selects (None: all); checks the arguments' types."""
        if isinstance(output_names, dict) or input_feed is None:
            raise TypeError(f"ge: {method}(output_names, input_feed): the first argument is the list of output "
                            f"names (or None for all), the second the dict {{input name: array}}; "
                            f"write sess.{method}(None, {{...}})")
        if run_options is not None:
            raise TypeError("ge: run_options are not supported; pass None")
        if output_names is None:
            return None
        if isinstance(output_names, (str, bytes)) or not hasattr(output_names, "__iter__"):
            raise TypeError(f"ge: output_names must be a list of output names or None, got "
                            f"{type(output_names).__name__}; write [{output_names!r}]")
        try:
            return [self._output_index[name] for name in output_names]
        except KeyError:
            unknown = [name for name in output_names if name not in self._output_index]
            raise invalid_argument(f"unknown output names {unknown}; the model's outputs are "
                                   f"{list(self._output_index)}") from None
