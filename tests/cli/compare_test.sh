#!/usr/bin/env bash
# One black-box test case of `ge compare` (docs/compare.md).
# usage: compare_test.sh CASE GE_BINARY WORK_DIR
#
# The models are tiny ONNX files written here: y = Relu(x * scale) with input
# x [1, N] and an initializer "scale" [N], encoded by hand (CI's python may
# lack the onnx package). Differing scales give differences worked out below.
set -euo pipefail

readonly case_name=$1 ge=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
cd "$work"

source "$(dirname "${BASH_SOURCE[0]}")/test_helpers.sh"

# write_scale_model FILE SCALE...: the Mul ("mul" -> "scaled") + Relu ("relu" -> "y") model.
write_scale_model() {
  python3 - "$@" <<'PY'
import struct, sys

def varint(n):
    out = b""
    while True:
        low, n = n & 0x7F, n >> 7
        if not n:
            return out + bytes([low])
        out += bytes([low | 0x80])

def field(number, wire, payload): return varint(number << 3 | wire) + payload
def num(number, value): return field(number, 0, varint(value))
def msg(number, payload): return field(number, 2, varint(len(payload)) + payload)
def text(number, value): return msg(number, value.encode())

def value_info(number, name, dims):  # ValueInfoProto with a float tensor type
    shape = b"".join(msg(1, num(1, d)) for d in dims)
    return msg(number, text(1, name) + msg(2, msg(1, num(1, 1) + msg(2, shape))))

def node(inputs, output, name, op_type):
    return msg(1, b"".join(text(1, i) for i in inputs) + text(2, output) + text(3, name) + text(4, op_type))

path, scales = sys.argv[1], [float(v) for v in sys.argv[2:]]
n = len(scales)
initializer = msg(5, num(1, n) + num(2, 1) + msg(4, struct.pack(f"<{n}f", *scales)) + text(8, "scale"))
graph = (node(["x", "scale"], "scaled", "mul", "Mul") + node(["scaled"], "y", "relu", "Relu") + text(2, "scale_relu")
         + initializer + value_info(11, "x", [1, n]) + value_info(12, "y", [1, n]))
with open(path, "wb") as f:
    f.write(num(1, 8) + text(2, "compare_test") + msg(7, graph) + msg(8, text(1, "") + num(2, 13)))
PY
}

# write_npy FILE VALUE...: a float32 [1, N] .npy (version 1.0 header, padded to 64 bytes).
write_npy() {
  python3 - "$@" <<'PY'
import struct, sys
values = [float(v) for v in sys.argv[2:]]
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, %d), }" % len(values)
header += " " * (64 - 10 - len(header) - 1) + "\n"
with open(sys.argv[1], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
    f.write(struct.pack("<%df" % len(values), *values))
PY
}

# With x = [1, -1, 2, 0.5], a (scales 1 2 3 4) and b (scales 1 2 3 -4):
#   scaled: b [1, -2, 6, -2] vs a [1, -2, 6, 2]: cosine 37/45, RED 4/√45, |x/y − 1| = [0, 0, 0, 2]
#   y:      b [1,  0, 6,  0] vs a [1,  0, 6, 2]: cosine √(37/41), RED 2/√41, |x/y − 1| = [0, -, 0, 1]
write_scale_model a.onnx 1 2 3 4
write_scale_model b.onnx 1 2 3 -4
write_npy x.npy 1 -1 2 0.5

case $case_name in
  compare_json)
    "$ge" compare a.onnx b.onnx --input x=x.npy --json >cmp.json
    check_json cmp.json '
close = lambda a, b: abs(a - b) <= 1e-6 * max(1.0, abs(b))
layers = doc["layers"]
assert [l["op_name"] for l in layers] == ["mul", "relu"], layers
assert [l["value"] for l in layers] == ["scaled", "y"], layers
mul, relu = layers
assert mul["op_type"] == "Mul" and mul["dtype"] == "float32" and mul["shape"] == [1, 4], mul
assert close(mul["cosine"], 37 / 45) and close(mul["relative_euclidean_distance"], 4 / math.sqrt(45)), mul
assert close(mul["max_abs_error"], 4) and close(mul["accumulated_relative_error"], 2), mul
assert close(mul["mean_relative_error"], 0.5) and mul["below_threshold"], mul
assert close(relu["cosine"], math.sqrt(37 / 41)) and close(relu["relative_euclidean_distance"], 2 / math.sqrt(41)), relu
assert close(relu["max_relative_error"], 1) and close(relu["mean_relative_error"], 0.25), relu
assert doc["layers_compared"] == 2 and doc["layers_below_threshold"] == 2, doc
assert close(doc["output_cosine"], math.sqrt(37 / 41)), doc["output_cosine"]
assert doc["threshold"] == 0.99 and doc["csv"] is None
assert [o["name"] for o in doc["outputs"]] == ["y"] and close(doc["outputs"][0]["cosine"], math.sqrt(37 / 41))
'
    # A model against itself, on seeded random inputs: nothing differs.
    "$ge" compare a.onnx a.onnx --seed 7 --json >self.json
    check_json self.json '
assert doc["layers_compared"] == 2 and doc["layers_below_threshold"] == 0, doc
for layer in doc["layers"]:
    assert abs(layer["cosine"] - 1) < 1e-12 and layer["max_abs_error"] == 0, layer
assert abs(doc["output_cosine"] - 1) < 1e-12
'
    # The seed chooses the random inputs.
    "$ge" compare a.onnx a.onnx --seed 8 --json >self8.json
    python3 -c 'import json, sys; a, b = (json.load(open(f)) for f in sys.argv[1:]); assert a["layers"][0]["mean"] != b["layers"][0]["mean"]' \
      self.json self8.json || fail "--seed did not change the random inputs"
    ;;
  compare_csv)
    "$ge" compare a.onnx b.onnx --input x=x.npy --csv out.csv >human.txt
    header='Index,OpSequence,OpType,NPUDump,DataType,Address,GroundTruth,DataType,TensorIndex,Shape,CosineSimilarity,MaxAbsoluteError,AccumulatedRelativeError,RelativeEuclideanDistance,KullbackLeiblerDivergence,StandardDeviation,MeanAbsoluteError,RootMeanSquareError,MaxRelativeError,MeanRelativeError,CompareFailReason'
    [[ $(head -n 1 out.csv) == "$header" ]] || fail "CSV header is: $(head -n 1 out.csv)"
    python3 - out.csv <<'PY' || fail "CSV rows are wrong: $(cat out.csv)"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert len(rows) == 3, rows
mul = rows[1]
assert len(mul) == 21, mul
assert mul[0] == "0" and mul[2] == "Mul" and mul[3] == "mul" and mul[4] == "float32", mul
assert mul[5] == "NaN" and mul[6] == "mul" and mul[7] == "float32" and mul[8] == "0" and mul[9] == "[1,4]", mul
assert abs(float(mul[10]) - 37 / 45) < 1e-6, mul[10]
assert mul[15].startswith("(") and mul[15].count(";") == 2, mul[15]
assert rows[2][3] == "relu" and rows[2][20] == "", rows[2]
PY
    grep -q 'wrote out.csv' human.txt || fail "human report does not mention the CSV: $(cat human.txt)"
    grep -q '^2 layers compared, 2 below 0.99, output cosine 0.949968$' human.txt ||
      fail "summary line is wrong: $(cat human.txt)"
    [[ $(grep -c ' <' human.txt) == 2 ]] || fail "expected two rows marked '<': $(cat human.txt)"
    "$ge" compare a.onnx b.onnx --input x=x.npy --threshold 0.5 >loose.txt
    grep -q '^2 layers compared, 0 below 0.5,' loose.txt || fail "--threshold ignored: $(cat loose.txt)"
    # A compiled .gem compares like its .onnx.
    "$ge" compile --model a.onnx --output a.gem >/dev/null
    "$ge" compare a.onnx a.gem --json >gem.json
    check_json gem.json 'assert doc["layers_compared"] == 2 and abs(doc["output_cosine"] - 1) < 1e-12, doc'
    ;;
  compare_errors)
    "$ge" compare --help | grep -q '^usage: ge compare REFERENCE MODEL' || fail "no usage line in --help"
    expect_failure 1 'no_such.onnx' "$ge" compare a.onnx no_such.onnx
    write_scale_model wide.onnx 1 2 3 4 5
    expect_failure 1 "'x' float32\[1,4\] in the reference but 'x' float32\[1,5\]" "$ge" compare a.onnx wide.onnx
    expect_failure 1 "'x'" "$ge" compare a.onnx a.onnx --input nosuchinput=x.npy
    expect_failure 2 'REFERENCE MODEL' "$ge" compare a.onnx
    expect_failure 2 '--threshold' "$ge" compare a.onnx a.onnx --threshold 2
    expect_failure 2 '--seed' "$ge" compare a.onnx a.onnx --seed -1
    expect_failure 1 'cannot write' "$ge" compare a.onnx a.onnx --csv no_such_dir/out.csv
    [[ ! -e no_such_dir ]] || fail "a failed --csv left a directory behind"
    ;;
  *)
    fail "unknown case"
    ;;
esac
