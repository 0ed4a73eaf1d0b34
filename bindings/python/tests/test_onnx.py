"""The demo model through ONNX import, against ONNX Runtime's output."""
import threading

import numpy as np

import ge


def test_demo_model_from_file_and_bytes(demo_model_path, demo_io):
    image, expected = demo_io
    for graph in (ge.load_onnx(demo_model_path), ge.load_onnx(open(demo_model_path, "rb").read())):
        model = ge.compile(graph)
        assert [name for name, _, _ in model.inputs] == ["image"]
        (probabilities,) = model.run([image])
        np.testing.assert_allclose(probabilities, expected, rtol=0, atol=1e-5)


def test_non_contiguous_input_is_handled(demo_model_path, demo_io):
    image, expected = demo_io
    model = ge.compile(ge.load_onnx(demo_model_path))
    transposed = np.ascontiguousarray(image.transpose(0, 1, 3, 2)).transpose(0, 1, 3, 2)
    assert not transposed.flags.c_contiguous
    np.testing.assert_allclose(model.run([transposed])[0], expected, atol=1e-5)


def test_threads_share_one_model(demo_model_path, demo_io):
    image, _ = demo_io
    model = ge.compile(ge.load_onnx(demo_model_path))
    inputs = [np.roll(image, 97 * t) for t in range(8)]
    serial = [model.run([x])[0].copy() for x in inputs]
    failures = []

    def work(t):
        for _ in range(10):
            if not np.array_equal(model.run([inputs[t]])[0], serial[t]):
                failures.append(t)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
