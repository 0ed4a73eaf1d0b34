"""ge: Python bindings of the ge graph engine over its stable C ABI.

    import numpy as np, ge
    model = ge.compile(ge.load_onnx("models/demo_cnn.onnx"))
    (probabilities,) = model.run([np.zeros((1, 3, 32, 32), np.float32)])

The library is found through the GE_C_LIBRARY environment variable (the path
of libge_c.so), a copy bundled in this package, or the system's library path.
"""
from ge._lib import abi_version, version
from ge.errors import (GeError, InternalError, InvalidArgumentError, InvalidModelError, IoError, NotFoundError,
                       OutOfMemoryError, UnsupportedError)
from ge.graph import Graph, Value, load_onnx
from ge.model import Model, compile, load
from ge.plugins import load_plugin
from ge.session import Session

__all__ = [
    "abi_version", "version", "GeError", "InternalError", "InvalidArgumentError", "InvalidModelError", "IoError",
    "NotFoundError", "OutOfMemoryError", "UnsupportedError", "Graph", "Value", "load_onnx", "Model", "compile",
    "load", "Session", "load_plugin",
]
