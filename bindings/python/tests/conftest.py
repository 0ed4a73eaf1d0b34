"""The package is imported from the source tree (or an installed copy); the
library comes from GE_C_LIBRARY, which the ctest test sets."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "models")


@pytest.fixture
def demo_model_path():
    return os.path.join(MODELS, "demo_cnn.onnx")


@pytest.fixture
def demo_io():
    import numpy as np
    return np.load(os.path.join(MODELS, "demo_cnn.input.npy")), np.load(os.path.join(MODELS, "demo_cnn.expected.npy"))
