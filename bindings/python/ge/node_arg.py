"""NodeArg: a model input or output described the way onnxruntime does
(InferenceSession.get_inputs() / get_outputs())."""

# ONNX Runtime's spelling of each ge_dtype value (include/ge_c/ge_c.h).
ORT_TYPE = {
    0: "tensor(float)", 1: "tensor(float16)", 2: "tensor(int8)", 3: "tensor(int32)", 4: "tensor(uint8)",
    6: "tensor(int16)", 7: "tensor(uint16)", 8: "tensor(uint32)", 9: "tensor(int64)", 10: "tensor(uint64)",
    11: "tensor(double)", 12: "tensor(bool)", 27: "tensor(bfloat16)",
    100: "sequence", 101: "optional",  # ge does not record what they hold
}


class NodeArg:
    """`name`; `type` ("tensor(float)", ...); `shape`, a list with, per dim,
    its size, or for a dim known only at run time the name the model gives it
    (ONNX dim_param, "batch"; for outputs the expression over those names
    that gives it, "sequence + past") or None, as onnxruntime shows it."""

    def __init__(self, name, ge_dtype, dims, dim_names=None):
        self.name = name
        self.type = ORT_TYPE.get(ge_dtype, f"tensor(ge dtype {ge_dtype})")
        self.shape = [d if d >= 0 else (dim_names[a] or None) if dim_names else None for a, d in enumerate(dims)]

    def __repr__(self):
        return f"NodeArg(name={self.name!r}, type={self.type!r}, shape={self.shape})"
