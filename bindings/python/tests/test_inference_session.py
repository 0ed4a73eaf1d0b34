"""ge.InferenceSession speaks onnxruntime's dialect: scripts written for
onnxruntime run with `import ge as ort`; checked against the demo model's
PyTorch-computed output and a two-output graph with dims known at run time."""
import os
import threading

import numpy as np
import pytest

import ge
import ge as ort

from conftest import PACKAGE_SOURCE


def test_onnxruntime_style_script(demo_model_path, demo_io):
    image, expected = demo_io
    sess = ort.InferenceSession(demo_model_path, providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    out = sess.run(None, {name: image})[0]
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-5)
    assert sess.get_providers() == ["CPUExecutionProvider"] == ort.get_available_providers()


def test_inputs_and_outputs_as_onnxruntime_describes_them(demo_model_path):
    sess = ge.InferenceSession(demo_model_path)
    (image,) = sess.get_inputs()
    (probabilities,) = sess.get_outputs()
    assert (image.name, image.type, image.shape) == ("image", "tensor(float)", [1, 3, 32, 32])
    assert (probabilities.name, probabilities.type, probabilities.shape) == ("probabilities", "tensor(float)", [1, 10])


@pytest.fixture
def two_output_gem(tmp_path):
    """A .gem of relu = Relu(x: float32 [?, 3]) and as_double = Cast(n: int64 [?, 3]) to float64."""
    g = ge.Graph("two_outputs")
    x = g.input("x", np.float32, [-1, 3])
    n = g.input("n", np.int64, [-1, 3])
    g.output(g.op("Relu", [x], name="relu"), g.op("Cast", [n], {"dst_type": 11}, name="as_double"))
    path = tmp_path / "two_outputs.gem"
    ge.compile(g).save(path)
    return path


def test_gem_file_with_dims_known_at_run_time(two_output_gem):
    for source in (two_output_gem, str(two_output_gem), two_output_gem.read_bytes()):
        sess = ge.InferenceSession(source)
        assert [(i.name, i.type, i.shape) for i in sess.get_inputs()] == [
            ("x", "tensor(float)", [None, 3]), ("n", "tensor(int64)", [None, 3])]
        assert [o.type for o in sess.get_outputs()] == ["tensor(float)", "tensor(double)"]


def test_output_selection_and_python_values(two_output_gem):
    sess = ge.InferenceSession(two_output_gem)
    feed = {"n": [[1, 2, 3], [4, 5, 6]], "x": np.array([[-1, 0, 2]], np.float32)}  # a list takes n's int64
    relu, as_double = sess.run(None, feed)
    np.testing.assert_array_equal(relu, [[0, 0, 2]])
    assert as_double.dtype == np.float64 and as_double.tolist() == [[1, 2, 3], [4, 5, 6]]
    (only,) = sess.run(["as_double"], feed)
    np.testing.assert_array_equal(only, as_double)
    reordered = sess.run(("as_double", "relu"), feed)
    np.testing.assert_array_equal(reordered[1], relu)
    scalar_rows = sess.run(["relu"], {"x": [[-2.5, 1.5, 3]], "n": np.zeros((1, 3), np.int64)})[0]
    np.testing.assert_array_equal(scalar_rows, [[0, 1.5, 3]])


def test_non_contiguous_input(demo_model_path, demo_io):
    image, expected = demo_io
    sess = ge.InferenceSession(demo_model_path)
    transposed = np.ascontiguousarray(image.transpose(0, 1, 3, 2)).transpose(0, 1, 3, 2)
    assert not transposed.flags.c_contiguous
    np.testing.assert_allclose(sess.run(None, {"image": transposed})[0], expected, atol=1e-5)


def test_argument_errors_say_what_was_expected(demo_model_path, demo_io):
    image, _ = demo_io
    sess = ge.InferenceSession(demo_model_path)
    with pytest.raises(TypeError, match=r"run\(output_names, input_feed\).*run\(None, \{\.\.\.\}\)"):
        sess.run({"image": image})
    with pytest.raises(TypeError, match=r"the second the dict"):
        sess.run({"image": image}, None)
    with pytest.raises(TypeError, match="input_feed must be a dict"):
        sess.run(None, [image])
    with pytest.raises(TypeError, match=r"output_names must be a list.*\['probabilities'\]"):
        sess.run("probabilities", {"image": image})
    with pytest.raises(ge.InvalidArgumentError, match=r"unknown input names \['img'\]; missing inputs \['image'\]"):
        sess.run(None, {"img": image})
    with pytest.raises(ge.InvalidArgumentError, match=r"missing inputs \['image'\]; the model's inputs are"):
        sess.run(None, {})
    with pytest.raises(ge.InvalidArgumentError, match=r"unknown output names \['logits'\]"):
        sess.run(["logits"], {"image": image})
    with pytest.raises(ge.InvalidArgumentError, match=r"'image': expected tensor\(float\).*got an array of float64"):
        sess.run(None, {"image": image.astype(np.float64)})
    for not_an_array in ("hello", None, object()):
        with pytest.raises(TypeError, match="'image': expected an array of tensor"):
            sess.run(None, {"image": not_an_array})
    with pytest.raises(TypeError, match="does not convert"):
        sess.run(None, {"image": [["a", "b"]]})
    with pytest.raises(ge.InvalidArgumentError, match="expected shape"):  # checked by the C side
        sess.run(None, {"image": image[:, :, :16]})


def test_construction_errors(demo_model_path, tmp_path):
    with pytest.raises(ValueError, match="unknown execution provider 'CUDAExecutionProvider'.*CPUExecutionProvider"):
        ge.InferenceSession(demo_model_path, providers=["CUDAExecutionProvider"])
    with pytest.raises(ValueError, match="takes no provider options"):
        ge.InferenceSession(demo_model_path, providers=["CPUExecutionProvider"], provider_options=[{"x": 1}])
    ge.InferenceSession(demo_model_path, providers=[("CPUExecutionProvider", {})], provider_options=None)
    with pytest.raises(ge.NotFoundError, match="missing.onnx"):
        ge.InferenceSession(tmp_path / "missing.onnx")
    # A FIFO is refused by name rather than waited on.
    os.mkfifo(tmp_path / "fifo.onnx")
    with pytest.raises(ge.IoError, match="fifo.onnx"):
        ge.InferenceSession(tmp_path / "fifo.onnx")
    with pytest.raises(TypeError, match="path .* or the bytes"):
        ge.InferenceSession(42)
    with pytest.raises(TypeError, match="unexpected keyword arguments"):
        ge.InferenceSession(demo_model_path, option={"ge.exec.maxArenas": 1})
    with pytest.raises(TypeError, match="dict of ge.* options"):
        ge.InferenceSession(demo_model_path, ["ge.exec.maxArenas"])
    with pytest.raises(ge.InvalidArgumentError, match="ge.exec.maxArenas"):
        ge.InferenceSession(demo_model_path, options={"ge.exec.maxArenas": -1})


def test_options_as_bool_int_and_str(demo_model_path, demo_io):
    image, expected = demo_io
    sess = ge.InferenceSession(demo_model_path, options={
        "ge.exec.disableReuseMemory": True, "ge.enableSingleStream": False, "ge.exec.maxArenas": 2,
        "ge.exec.intraOpThreads": "1"})
    memory = sess.model.memory
    assert memory["arena_bytes"] == memory["no_reuse_bytes"]  # the bool reached the planner
    np.testing.assert_allclose(sess.run(None, {"image": image})[0], expected, atol=1e-5)
    positional = ge.InferenceSession(demo_model_path, {"ge.exec.disableReuseMemory": False})
    assert positional.model.memory["arena_bytes"] <= memory["arena_bytes"]
    with pytest.raises(TypeError, match="option ge.exec.maxArenas: expected a str, bool, int"):
        ge.InferenceSession(demo_model_path, options={"ge.exec.maxArenas": [2]})


def test_run_async_calls_back_like_onnxruntime(two_output_gem):
    sess = ge.InferenceSession(two_output_gem)
    done = threading.Event()
    calls = []

    def callback(results, user_data, err):
        calls.append((results, user_data, err))
        done.set()

    sess.run_async(["as_double"], {"x": np.ones((2, 3), np.float32), "n": np.full((2, 3), 7, np.int64)}, callback,
                   "my data")
    assert done.wait(60)
    ((results, user_data, err),) = calls
    assert user_data == "my data" and err == ""
    np.testing.assert_array_equal(results[0], np.full((2, 3), 7.0))
    done.clear()
    sess.run_async(None, {"x": np.ones((2, 3), np.float32), "n": np.ones((2, 4), np.int64)}, callback, None)
    assert done.wait(60)
    assert calls[1][0] == [] and "input 'n'" in calls[1][2]
    with pytest.raises(TypeError, match="callback must be callable"):
        sess.run_async(None, {"x": np.ones((2, 3), np.float32), "n": np.ones((2, 3), np.int64)}, None)


def test_interpreter_exits_cleanly_right_after_an_async_result(python_subprocess):
    """The run thread may still be in the callback when the script ends; that
    must not abort the process (it did when the callback released tensors with
    the GIL dropped, about every other time: hence several processes)."""
    script = """
import numpy as np, ge
g = ge.Graph("relu")
g.output(g.op("Relu", [g.input("x", np.float32, [2, 3])]))
model = ge.compile(g)
model.run_async([np.ones((2, 3), np.float32)]).result(60)
"""
    for _ in range(6):
        result = python_subprocess(script, PACKAGE_SOURCE, keep_library_variable=True)
        assert result.returncode == 0, result.stderr


def test_native_apis_explain_misuse(demo_model_path, demo_io):
    image, expected = demo_io
    model = ge.compile(demo_model_path)  # a path is imported as ONNX
    np.testing.assert_allclose(model.run([image])[0], expected, atol=1e-5)
    with pytest.raises(TypeError, match=r"list of arrays.*ge.InferenceSession\(path\).run\(None, input_feed\)"):
        model.run({"image": image})
    with pytest.raises(TypeError, match=r"write \[array\]"):
        model.run(image)
    with pytest.raises(TypeError, match=r"input #0: numpy dtype <U5 has no ge dtype"):
        model.run([np.array(["hello"])])
    with pytest.raises(TypeError, match="compile takes a ge.Graph .* ge.InferenceSession"):
        ge.compile(model)
