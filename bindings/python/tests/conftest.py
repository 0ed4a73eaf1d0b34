"""The package is imported from the source tree (or an installed copy); the
library comes from GE_C_LIBRARY, which the ctest test sets."""
import os
import subprocess
import sys

import pytest

PACKAGE_SOURCE = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, PACKAGE_SOURCE)

REPO_ROOT = os.path.normpath(os.path.join(PACKAGE_SOURCE, "..", ".."))
MODELS = os.path.join(REPO_ROOT, "models")


@pytest.fixture
def demo_model_path():
    return os.path.join(MODELS, "demo_cnn.onnx")


@pytest.fixture
def demo_io():
    import numpy as np
    return np.load(os.path.join(MODELS, "demo_cnn.input.npy")), np.load(os.path.join(MODELS, "demo_cnn.expected.npy"))


@pytest.fixture
def python_subprocess():
    """Runs `python -c code` with this interpreter and PYTHONPATH=pythonpath;
    GE_C_LIBRARY is unset unless keep_library_variable, so that the process
    finds the library as an installed package does. Returns the
    CompletedProcess (text output)."""

    def run(code, pythonpath, cwd=None, keep_library_variable=False):
        env = {key: value for key, value in os.environ.items()
               if key != "GE_C_LIBRARY" or keep_library_variable}
        env.update(PYTHONPATH=str(pythonpath), PYTHONDONTWRITEBYTECODE="1")
        return subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True, text=True,
                              timeout=300)

    return run


@pytest.fixture
def loaded_library_path():
    """The libge_c.so this process loaded (from GE_C_LIBRARY in the ctest test)."""
    from ge import _lib
    return os.path.realpath(_lib.lib._name)
