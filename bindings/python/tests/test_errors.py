"""Errors arrive as exceptions carrying the C message."""
import numpy as np
import pytest

import ge


def test_graph_error_names_node_and_op():
    g = ge.Graph()
    a = g.input("a", np.float32, [2, 3])
    b = g.input("b", np.float32, [4, 5])
    with pytest.raises(ge.InvalidArgumentError) as info:
        g.op("Add", [a, b], name="bad_add")
    assert "bad_add" in str(info.value) and "Add" in str(info.value)
    assert info.value.status == "GE_INVALID_ARGUMENT"


def test_unknown_op_and_attribute_type():
    g = ge.Graph()
    x = g.input("x", np.float32, [2])
    with pytest.raises(ge.UnsupportedError, match="NoSuchOp"):
        g.op("NoSuchOp", [x])
    with pytest.raises(TypeError, match="'axes'"):
        g.op("SoftmaxV2", [x], {"axes": object()})


def test_files_and_options(tmp_path):
    with pytest.raises(ge.NotFoundError, match="no_such.onnx"):
        ge.load_onnx(tmp_path / "no_such.onnx")
    with pytest.raises(ge.InvalidModelError):
        ge.load_onnx(b"not a model")
    with pytest.raises(ge.InvalidModelError):
        ge.load(b"not a gem file, not at all")
    g = ge.Graph()
    g.output(g.op("Relu", [g.input("x", np.float32, [2])]))
    with pytest.raises(ge.InvalidArgumentError, match="ge.noSuchOption"):
        ge.compile(g, {"ge.noSuchOption": "1"})


def test_run_errors():
    g = ge.Graph()
    g.output(g.op("Relu", [g.input("x", np.float32, [2, 3])]))
    model = ge.compile(g)
    with pytest.raises(ge.InvalidArgumentError, match="input"):
        model.run([np.zeros((3, 2), np.float32)])
    with pytest.raises(TypeError):
        model.run([np.zeros((2, 3), np.complex64)])
    out = np.zeros((2, 2), np.float32)
    with pytest.raises(ge.InvalidArgumentError, match="outputs"):
        model.run([np.ones((2, 3), np.float32)], outputs=[out])
    with pytest.raises(ge.InvalidArgumentError, match="input"):
        model.run_async([np.zeros((3, 2), np.float32)]).result(timeout=60)
