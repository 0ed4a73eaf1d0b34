"""`ge.*` options (docs/options.md): a dict of Python values as the C ABI's
parallel arrays of key and value strings."""
import collections.abc
import os
from ctypes import c_char_p

import numpy as np

# GE spells most switches 0 / 1 but some true / false (lib/runtime/options.cc):
# a Python bool becomes the spelling its key takes.
_TRUE_FALSE_KEYS = frozenset({"ge.enableSingleStream"})


def option_text(key, value):
    """The string the C side parses for one option value."""
    if isinstance(value, (bool, np.bool_)):
        if key in _TRUE_FALSE_KEYS:
            return "true" if value else "false"
        return "1" if value else "0"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (str, float, np.floating, os.PathLike)):
        return os.fspath(value) if isinstance(value, os.PathLike) else str(value)
    raise TypeError(f"ge: option {key}: expected a str, bool, int, float or path, got {type(value).__name__}")


def option_arrays(mapping):
    """(keys, values, count) C arrays for a dict of `ge.*` options (None: no options)."""
    mapping = {} if mapping is None else mapping
    if not isinstance(mapping, collections.abc.Mapping):
        raise TypeError(f"ge: options must be a dict of ge.* options, e.g. {{'ge.exec.maxArenas': 4}}; "
                        f"got {type(mapping).__name__}")
    for key in mapping:
        if not isinstance(key, str):
            raise TypeError(f"ge: option keys are str ('ge.exec.maxArenas'); got {key!r}")
    keys = (c_char_p * max(len(mapping), 1))(*[key.encode() for key in mapping])
    values = (c_char_p * max(len(mapping), 1))(*[option_text(k, v).encode() for k, v in mapping.items()])
    return keys, values, len(mapping)
