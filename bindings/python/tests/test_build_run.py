"""Graph building, compile, run (sync, async, into caller arrays), sessions,
against a float64 numpy reference."""
import numpy as np

import ge

RNG = np.random.default_rng(7)
X = RNG.uniform(-1, 1, (2, 3)).astype(np.float32)
W = RNG.uniform(-1, 1, (3, 4)).astype(np.float32)
B = RNG.uniform(-1, 1, (4,)).astype(np.float32)


def reference(x):
    y = np.maximum(x.astype(np.float64) @ W.astype(np.float64) + B, 0)
    e = np.exp(y - y.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def build():
    g = ge.Graph("mlp")
    x = g.input("x", np.float32, [2, 3])
    y = g.op("MatMulV2", [x, g.constant("w", W), g.constant("b", B)], {"transpose_x1": False}, name="fc")
    assert y.shape == (2, 4) and y.dtype == np.float32 and y.name == "fc"
    s = g.op("SoftmaxV2", [g.op("Relu", [y])], {"axes": [-1]})
    g.output(s)
    return g


def test_versions():
    assert ge.abi_version()[0] == 0 and "." in ge.version()


def test_build_compile_run():
    model = ge.compile(build())
    assert model.inputs == [("x", np.dtype(np.float32), (2, 3))]
    assert model.outputs[0][1:] == (np.dtype(np.float32), (2, 4))
    memory = model.memory
    assert memory["const_bytes"] >= W.nbytes + B.nbytes and not memory["dynamic"]
    (y,) = model.run([X])
    np.testing.assert_allclose(y, reference(X), rtol=0, atol=1e-6)


def test_outputs_into_caller_arrays():
    model = ge.compile(build())
    out = np.zeros((2, 4), np.float32)
    (y,) = model.run([X], outputs=[out])
    assert y is out
    np.testing.assert_allclose(out, reference(X), atol=1e-6)


def test_engine_outputs_are_not_copied():
    model = ge.compile(build())
    (y,) = model.run([X])
    assert not y.flags.owndata  # a view over ge's buffer, freed with the array


def test_async_runs():
    model = ge.compile(build())
    inputs = [RNG.uniform(-1, 1, (2, 3)).astype(np.float32) for _ in range(16)]
    futures = [model.run_async([x]) for x in inputs]
    for x, future in zip(inputs, futures):
        np.testing.assert_allclose(future.result(timeout=60)[0], reference(x), atol=1e-6)


def test_save_and_load(tmp_path):
    model = ge.compile(build(), {"ge.exec.maxArenas": "2"})
    path = tmp_path / "mlp.gem"
    model.save(path)
    for loaded in (ge.load(path), ge.load(path.read_bytes(), {"ge.exec.maxArenas": "3"})):
        np.testing.assert_allclose(loaded.run([X])[0], reference(X), atol=1e-6)


def test_session():
    session = ge.Session({"ge.exec.maxArenas": "2"})
    session.add_graph(3, build())
    np.testing.assert_allclose(session.run_graph(3, [X])[0], reference(X), atol=1e-6)
    assert session.compile_graph(3).outputs[0][2] == (2, 4)
