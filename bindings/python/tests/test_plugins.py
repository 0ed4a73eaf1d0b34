"""ge.load_plugin with the example plugin examples/plugins/vendor_swish, whose
path the ctest test passes in GE_TEST_PLUGIN."""
import os

import numpy as np
import pytest

import ge

PLUGIN = os.environ.get("GE_TEST_PLUGIN")


@pytest.mark.skipif(not PLUGIN, reason="GE_TEST_PLUGIN (the example plugin's path) is not set")
def test_plugin_op_runs_against_a_numpy_reference():
    ge.load_plugin(PLUGIN)
    ge.load_plugin(PLUGIN)  # a second load of the same file does nothing
    g = ge.Graph("swish")
    x = g.input("x", np.float32, [2, 3])
    g.output(g.op("VendorSwish", [x], {"beta": 0.5}))
    data = np.linspace(-3, 3, 6, dtype=np.float32).reshape(2, 3)
    (y,) = ge.compile(g).run([data])
    expected = data.astype(np.float64) / (1 + np.exp(-0.5 * data.astype(np.float64)))
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-6)


def test_missing_plugin_file_is_not_found(tmp_path):
    with pytest.raises(ge.NotFoundError, match="no_such_plugin.so"):
        ge.load_plugin(tmp_path / "no_such_plugin.so")
