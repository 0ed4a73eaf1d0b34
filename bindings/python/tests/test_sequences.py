"""Sequences and optionals from Python: a sequence input is a list of arrays,
a sequence output a list, an optional an array or None; through ge.Model and
ge.InferenceSession, checked against numpy."""
import numpy as np
import pytest

import ge


def sequence_model():
    """length, last element and the sequence with x appended, of a float32 sequence."""
    g = ge.Graph("sequences")
    seq = g.input("seq", "sequence", [-1])
    x = g.input("x", np.float32, [-1])
    length = g.op("SequenceLength", [seq], name="length")
    last = g.op("SequenceAt", [seq, g.constant("minus_one", np.array(-1, np.int64))], {"dtype": np.float32},
                name="last")
    longer = g.op("SequenceInsert", [seq, x], name="longer")
    g.output(length, last, longer)
    return ge.compile(g)


def test_sequence_in_and_out():
    model = sequence_model()
    a, b, x = np.arange(3, dtype=np.float32), np.ones(2, np.float32), np.full(4, 7, np.float32)
    length, last, longer = model.run([[a, b], x])
    assert int(length) == 2
    np.testing.assert_array_equal(last, b)
    assert isinstance(longer, list) and len(longer) == 3
    for got, want in zip(longer, [a, b, x]):
        np.testing.assert_array_equal(got, want)


def test_inference_session_feeds_lists(tmp_path):
    path = tmp_path / "sequences.gem"
    sequence_model().save(path)
    sess = ge.InferenceSession(str(path))
    assert [arg.type for arg in sess.get_inputs()] == ["sequence", "tensor(float)"]
    (length,) = sess.run(["length"], {"seq": [np.zeros(1, np.float32)] * 3, "x": np.zeros(1, np.float32)})
    assert int(length) == 3
    with pytest.raises(TypeError, match="a sequence input takes a list of arrays"):
        sess.run(None, {"seq": np.zeros(3, np.float32), "x": np.zeros(1, np.float32)})


def test_optional_some_and_none():
    g = ge.Graph("optional")
    opt = g.input("opt", "optional", [-1])
    g.output(g.op("OptionalHasElement", [opt], name="has"), g.op("Identity", [opt], name="same"))
    model = ge.compile(g)
    has, same = model.run([np.array([1.5], np.float32)])
    assert bool(has)
    np.testing.assert_array_equal(same, [1.5])
    has, same = model.run([None])
    assert not bool(has) and same is None
