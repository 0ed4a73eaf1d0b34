"""Named dims (ONNX dim_param) through the C ABI: InferenceSession.get_inputs()
shows them as onnxruntime does (and get_outputs() the outputs' dims derived from them), Model.dim_names() lists them, and a run whose
inputs give dims of one name different sizes is refused naming both. The model
is written here as protobuf bytes (no onnx package is needed)."""
import numpy as np
import pytest

import ge


def _varint(value):
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _field(number, payload):
    """A length-delimited field (wire type 2): bytes, strings, messages."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _int_field(number, value):
    return _varint(number << 3) + _varint(value)


def _value_info(name, dims):
    """ValueInfoProto of a float tensor; a str dim is a dim_param."""
    shape = b"".join(_field(1, _field(2, d.encode()) if isinstance(d, str) else _int_field(1, d)) for d in dims)
    tensor_type = _int_field(1, 1) + _field(2, shape)  # elem_type FLOAT, shape
    return _field(1, name.encode()) + _field(2, _field(1, tensor_type))


def named_dims_model():
    """sum = Add(a [batch, seq], b [batch, seq]), opset 13."""
    node = _field(1, b"a") + _field(1, b"b") + _field(2, b"sum") + _field(4, b"Add")
    graph = (_field(1, node) + _field(2, b"named_dims") + _field(11, _value_info("a", ["batch", "seq"])) +
             _field(11, _value_info("b", ["batch", "seq"])) + _field(12, _value_info("sum", ["batch", "seq"])))
    return _int_field(1, 8) + _field(8, _int_field(2, 13)) + _field(7, graph)


def test_named_dims_as_onnxruntime_shows_them():
    sess = ge.InferenceSession(named_dims_model())
    assert [(i.name, i.shape) for i in sess.get_inputs()] == [("a", ["batch", "seq"]), ("b", ["batch", "seq"])]
    assert sess.model.dim_names() == [["batch", "seq"], ["batch", "seq"]]
    # Outputs: their dims as symbolic inference derives them from the inputs'.
    assert [(o.name, o.shape) for o in sess.get_outputs()] == [("sum", ["batch", "seq"])]
    assert sess.model.dim_names("outputs") == [["batch", "seq"]]
    a = np.ones((2, 3), np.float32)
    (total,) = sess.run(None, {"a": a, "b": a})
    np.testing.assert_array_equal(total, 2 * a)


def test_dims_of_one_name_must_agree():
    sess = ge.InferenceSession(named_dims_model())
    with pytest.raises(ge.InvalidArgumentError, match=r"input 'b' \(#1\) has 4 along dim 1 \('seq'\)"):
        sess.run(None, {"a": np.ones((2, 3), np.float32), "b": np.ones((2, 4), np.float32)})
