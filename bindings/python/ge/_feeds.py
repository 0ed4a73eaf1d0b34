"""onnxruntime-style feeds, {input name: array-like}, as the arrays of a run in
input order; errors say what was expected. Made once per session, so a run
only looks names up."""
import collections.abc
import numbers

import numpy as np

from ge._tensors import OPTIONAL, SEQUENCE
from ge.errors import InvalidArgumentError
from ge.node_arg import ORT_TYPE


def invalid_argument(message):
    """The exception for a bad name or dtype, of the class the C side raises for those."""
    return InvalidArgumentError("GE_INVALID_ARGUMENT", f"ge: {message}")


class FeedLayout:
    """The inputs of a model: names in order and the numpy dtype each takes
    (None for one numpy has no dtype for: bfloat16)."""

    def __init__(self, names, ge_dtypes, numpy_dtypes):
        self._names = tuple(names)
        self._dtypes = list(numpy_dtypes)
        self._containers = [t in (SEQUENCE, OPTIONAL) for t in ge_dtypes]  # lists / None pass as they are
        self._expected = [ORT_TYPE.get(t, f"ge dtype {t}") + ("" if d is None else f" (numpy {d})")
                          for t, d in zip(ge_dtypes, self._dtypes)]

    def arrays(self, input_feed):
        """The feed's arrays in input order. Arrays keep their dtype (a wrong one
        is reported, not cast); numbers and nested lists become arrays of the
        input's dtype."""
        if not isinstance(input_feed, dict) and not isinstance(input_feed, collections.abc.Mapping):
            raise TypeError(f"ge: input_feed must be a dict {{input name: array}}, got {type(input_feed).__name__}")
        try:
            arrays = [input_feed[name] for name in self._names]
        except KeyError:
            raise self._names_error(input_feed) from None
        if len(input_feed) != len(self._names):
            raise self._names_error(input_feed)
        for i, value in enumerate(arrays):
            if self._containers[i]:
                continue
            if type(value) is not np.ndarray:
                value = arrays[i] = self._as_array(i, value)
            if value.dtype != self._dtypes[i] and self._dtypes[i] is not None:
                raise invalid_argument(f"input {self._names[i]!r}: expected {self._expected[i]}, got an array "
                                       f"of {value.dtype}")
        return arrays

    def _as_array(self, i, value):
        if isinstance(value, (np.ndarray, np.generic)) or hasattr(value, "__array__"):
            return np.asarray(value)
        if isinstance(value, (numbers.Number, list, tuple)) and self._dtypes[i] is not None:
            try:
                return np.asarray(value, self._dtypes[i])
            except (TypeError, ValueError) as e:
                raise TypeError(f"ge: input {self._names[i]!r}: {value!r} does not convert to an array of "
                                f"{self._dtypes[i]}: {e}") from None
        raise TypeError(f"ge: input {self._names[i]!r}: expected an array of {self._expected[i]} (or a number or "
                        f"nested list of numbers), got {type(value).__name__}")

    def _names_error(self, input_feed):
        unknown = [name for name in input_feed if name not in self._names]
        missing = [name for name in self._names if name not in input_feed]
        problems = ([f"unknown input names {unknown}"] if unknown else []) + \
                   ([f"missing inputs {missing}"] if missing else [])
        return invalid_argument(f"{'; '.join(problems)}; the model's inputs are {list(self._names)}")
