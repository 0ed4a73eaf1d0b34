"""ge: Python bindings of the ge graph engine over its stable C ABI.

onnxruntime's API (a script for onnxruntime runs with `import ge as ort`):

    import numpy as np, ge
    session = ge.InferenceSession("models/demo_cnn.onnx")
    (probabilities,) = session.run(None, {"image": np.zeros((1, 3, 32, 32), np.float32)})

and ge's own: ge.compile, ge.load, ge.Graph, ge.Session, ge.Model.run.

The library is found through the GE_C_LIBRARY environment variable (the path
of libge_c.so), a copy bundled in this package, the lib folders of the prefix
the package is installed in, or the system's library path (ge/_find_library.py).
"""
from ge._lib import abi_version, version
from ge.errors import (GeError, InternalError, InvalidArgumentError, InvalidModelError, IoError, NotFoundError,
                       OutOfMemoryError, UnsupportedError)
from ge.graph import Graph, Value, load_onnx
from ge.inference_session import InferenceSession
from ge.io_binding import IOBinding
from ge.model import Model, compile, load
from ge.node_arg import NodeArg
from ge.plugins import load_plugin
from ge.providers import get_available_providers
from ge.session import Session

__all__ = [
    "abi_version", "version", "GeError", "InternalError", "InvalidArgumentError", "InvalidModelError", "IoError",
    "NotFoundError", "OutOfMemoryError", "UnsupportedError", "Graph", "Value", "load_onnx", "Model", "compile",
    "load", "Session", "IOBinding", "load_plugin", "InferenceSession", "NodeArg", "get_available_providers",
]
