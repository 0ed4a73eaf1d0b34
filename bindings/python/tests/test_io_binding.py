"""IO binding in onnxruntime's dialect (session.io_binding(),
run_with_iobinding): outputs written into bound arrays and raw buffers in
place, a state bound as input and output updated in place, a growing
KV-style cache in caller buffers of the longest length, and the errors;
checked against float64 numpy references."""
import numpy as np
import pytest

import ge


def state_session(tmp_path):
    """a = Sigmoid(h), b = a + h for h float32 [?, 3], saved and opened as a session."""
    g = ge.Graph("state")
    h = g.input("h", np.float32, [-1, 3])
    a = g.op("Sigmoid", [h], name="a")
    g.output(a, g.op("Add", [a, h], name="b"))
    path = tmp_path / "state.gem"
    ge.compile(g).save(path)
    return ge.InferenceSession(str(path))


def sigmoid(x):
    return 1 / (1 + np.exp(-x.astype(np.float64)))


def test_bound_output_array_is_written_in_place(tmp_path):
    sess = state_session(tmp_path)
    h = np.linspace(-2, 2, 6, dtype=np.float32).reshape(2, 3)
    a = np.empty((2, 3), np.float32)
    io = sess.io_binding()
    io.bind_cpu_input("h", h)
    io.bind_cpu_output("a", a)
    sess.run_with_iobinding(io)
    np.testing.assert_allclose(a, sigmoid(h), rtol=0, atol=1e-6)
    got_a, got_b = io.get_outputs()
    assert got_a is a
    np.testing.assert_allclose(got_b, sigmoid(h) + h, rtol=0, atol=1e-6)
    copies = io.copy_outputs_to_cpu()
    assert copies[0] is not a and np.array_equal(copies[0], a)


def test_state_bound_as_input_and_output_updates_in_place(tmp_path):
    sess = state_session(tmp_path)
    h = np.array([[-1.0, 0.0, 1.0]], np.float32)
    before = h.copy()
    io = sess.io_binding()
    io.bind_cpu_input("h", h)
    io.bind_cpu_output("a", h)
    sess.run_with_iobinding(io)
    np.testing.assert_allclose(h, sigmoid(before), rtol=0, atol=1e-6)
    # b read h before a was written over it.
    np.testing.assert_allclose(io.get_outputs()[1], sigmoid(before) + before, rtol=0, atol=1e-6)
    stats = sess.model.run_stats
    assert (stats["runs"], stats["node_by_node_runs"], stats["plans_compiled"]) == (1, 1, 0)


def test_raw_buffers_in_onnxruntime_form(tmp_path):
    sess = state_session(tmp_path)
    h = np.full((4, 3), 0.5, np.float32)
    b = np.zeros((4, 3), np.float32)
    io = sess.io_binding()
    io.bind_input("h", "cpu", 0, np.float32, h.shape, h.ctypes.data)
    io.bind_output("b", "cpu", 0, np.float32, b.shape, b.ctypes.data)
    io.bind_output("a")  # ge allocates
    io.synchronize_inputs()
    sess.run_with_iobinding(io)
    io.synchronize_outputs()
    np.testing.assert_allclose(b, sigmoid(h) + h, rtol=0, atol=1e-6)
    np.testing.assert_allclose(io.get_outputs()[0], sigmoid(h), rtol=0, atol=1e-6)


def test_cache_grows_in_buffers_of_the_longest_length():
    """out = Concat(past, x) along axis 0: each step writes the longer cache
    into the other of two caller buffers, viewed at the step's shape."""
    g = ge.Graph("cache")
    past = g.input("past", np.float32, [-1, 4])
    x = g.input("x", np.float32, [1, 4])
    g.output(g.op("ConcatD", [past, x], {"concat_dim": 0, "N": 2}, name="present"))
    model = ge.compile(g)
    storage = [np.zeros((10, 4), np.float32), np.zeros((10, 4), np.float32)]
    io = model.io_binding()
    cache = np.zeros((0, 4), np.float32)
    rows = []
    for step in range(10):
        row = np.full((1, 4), step, np.float32)
        rows.append(row)
        present = storage[step % 2][:step + 1]
        io.bind_cpu_input("past", cache)
        io.bind_cpu_input("x", row)
        io.bind_cpu_output("present", present)
        io.run()
        np.testing.assert_array_equal(present, np.concatenate(rows))
        cache = present


def test_errors_name_what_is_wrong(tmp_path):
    sess = state_session(tmp_path)
    io = sess.io_binding()
    with pytest.raises(ge.InvalidArgumentError, match="its inputs are 'h'"):
        io.bind_cpu_input("x", np.zeros((1, 3), np.float32))
    with pytest.raises(ge.InvalidArgumentError, match="its outputs are 'a', 'b'"):
        io.bind_cpu_output("c", np.zeros((1, 3), np.float32))
    with pytest.raises(ge.InvalidArgumentError, match="input 'h' is float32"):
        io.bind_cpu_input("h", np.zeros((1, 3), np.float64))
    with pytest.raises(ge.InvalidArgumentError, match="input 'h' is not bound"):
        sess.run_with_iobinding(io)
    with pytest.raises(ge.InvalidArgumentError, match="device 'cuda':0"):
        io.bind_output("a", "cuda", 0, np.float32, (1, 3), 0)
    with pytest.raises(ValueError, match="C-contiguous and writable"):
        io.bind_cpu_output("a", np.zeros((3, 2), np.float32).T)
    io.bind_cpu_input("h", np.zeros((2, 3), np.float32))
    io.bind_cpu_output("a", np.zeros((5, 3), np.float32))
    with pytest.raises(ge.InvalidArgumentError, match=r"output 'a' is float32 \[2,3\] in this run"):
        sess.run_with_iobinding(io)
    io.clear_binding_outputs()
    io.clear_binding_inputs()
    with pytest.raises(ge.InvalidArgumentError, match="input 'h' is not bound"):
        sess.run_with_iobinding(io)
    with pytest.raises(TypeError, match="made by this session"):
        state_session(tmp_path).run_with_iobinding(io)
