#!/usr/bin/env bash
# One black-box test case of `ge quantize` on the demo CNN.
# usage: quantize_test.sh CASE GE_BINARY REPO_ROOT WORK_DIR
set -euo pipefail

readonly case_name=$1 ge=$2 repo=$3 work=$4
readonly demo="$repo/models/demo_cnn.onnx"
rm -rf "$work"
mkdir -p "$work"
cd "$work"

source "$(dirname "${BASH_SOURCE[0]}")/test_helpers.sh"

# write_calibration DIR COUNT [DIMS]: COUNT float32 .npy files of shape DIMS
# (default 1,3,32,32) of seeded pseudo-random values in [-1, 1] (python's
# stdlib only: CI may lack numpy).
write_calibration() {
  python3 - "$1" "$2" "${3:-1,3,32,32}" <<'PY'
import math, os, random, struct, sys
folder, count = sys.argv[1], int(sys.argv[2])
dims = [int(d) for d in sys.argv[3].split(",")]
os.makedirs(folder, exist_ok=True)
rng = random.Random(5)
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s,), }" % ", ".join(map(str, dims))
header += " " * (64 - 10 - len(header) - 1) + "\n"
for k in range(count):
    values = [rng.uniform(-1.0, 1.0) for _ in range(math.prod(dims))]
    with open(os.path.join(folder, "batch_%02d.npy" % k), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<%df" % len(values), *values))
PY
}

case $case_name in
  quantize_tensorflow)
    # A TensorFlow GraphDef (text form) with ATC's import flags, judged by TensorFlow's table: the MatMul
    # keeps its row, the one with transpose_b is refused by it.
    cat >net.pbtxt <<'PB'
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: -1 } dim { size: 4 } } } } }
node { name: "w" op: "Const" attr { key: "value" value { tensor { dtype: DT_FLOAT
       tensor_shape { dim { size: 4 } dim { size: 3 } } float_val: 0.5 } } } }
node { name: "y" op: "MatMul" input: "x" input: "w" }
node { name: "w_t" op: "Const" attr { key: "value" value { tensor { dtype: DT_FLOAT
       tensor_shape { dim { size: 3 } dim { size: 4 } } float_val: 0.25 } } } }
node { name: "y_t" op: "MatMul" input: "x" input: "w_t" attr { key: "transpose_b" value { b: true } } }
node { name: "relu" op: "Relu" input: "y" }
PB
    write_calibration calib 1 2,4
    "$ge" quantize net.pbtxt --framework 3 --input_shape "x:2,4" --out_nodes "relu:0;y_t:0" --calib-data calib \
      -o q.gem --json >quantize.json
    check_json quantize.json '
layers = {l["layer"]: l for l in doc["layers"]}
assert sorted(layers) == ["y", "y_t"], layers
y, y_t = layers["y"], layers["y_t"]
assert (y["framework"], y["framework_op"], y["decision"]) == ("TensorFlow", "MatMul", "INT8"), y
assert y["rule"].startswith("TensorFlow MatMul: transpose_a, transpose_b"), y
assert y_t["decision"] == "skipped: TensorFlow MatMul transpose_a and transpose_b must be False (transpose_b = True)", y_t'
    "$ge" run q.gem --json --loop 1 >run.json
    check_json run.json 'assert [(o["name"], o["shape"]) for o in doc["outputs"]] == [("relu", [2, 3]), ("y_t", [2, 3])], doc'
    expect_failure 2 'applies to Caffe nets' "$ge" quantize net.pbtxt --weight w.caffemodel --calib-data calib -o bad.gem
    # --soc_version: IPV350's table keeps TensorFlow's MatMul; a misspelled product is one error line.
    "$ge" quantize net.pbtxt --input_shape "x:2,4" --out_nodes "relu:0" --calib-data calib -o ipv.gem \
      --soc_version IPV350 --json >ipv.json
    check_json ipv.json '
assert doc["soc_version"] == "IPV350", doc["soc_version"]
y = [l for l in doc["layers"] if l["layer"] == "y"][0]
assert y["decision"] == "INT8" and y["rule"].startswith("IPV350 table: TensorFlow MatMul:"), y'
    expect_failure 1 "--soc_version 'Ascend999' is not a product" "$ge" quantize net.pbtxt --calib-data calib \
      --input_shape "x:2,4" -o bad.gem --soc_version Ascend999
    [[ ! -e bad.gem ]] || fail "a failed quantize wrote bad.gem"
    ;;
  quantize_json)
    write_calibration calib 2
    "$ge" quantize --model "$demo" --calib-data calib --output q.gem --record record.txt --report-dir report \
      --json >quantize.json
    check_json quantize.json '
layers = {l["layer"]: l for l in doc["layers"]}
convs = [l for l in doc["layers"] if l["op_type"] == "Conv2D"]
assert len(convs) == 2 and all(l["decision"] == "INT8" for l in convs), convs
assert all(l["cosine"] > 0.99 for l in convs), convs
assert doc["output_cosine"] > 0.99, doc["output_cosine"]
assert doc["output_bytes"] > 0 and doc["fallback"] == []
'
    [[ -s record.txt ]] || fail "no record file"
    grep -q 'scale_d' record.txt || fail "record lacks scale_d"
    for file in quant_config.txt record.txt compare.csv; do [[ -s report/$file ]] || fail "report/$file missing"; done
    head -1 report/compare.csv | grep -q '^Index,OpSequence,OpType,NPUDump' || fail "compare.csv header"
    # The quantized model runs like any other .gem.
    "$ge" run q.gem --json --loop 1 >run.json
    check_json run.json 'assert doc["outputs"][0]["shape"] == [1, 10]'
    # Replaying the record needs no calibration data and gives the same factors.
    "$ge" quantize --model "$demo" --from-record record.txt --output replay.gem --record replay.txt --json >replay.json
    cmp record.txt replay.txt || fail "replayed record differs"
    ;;
  quantize_human)
    write_calibration calib 1
    # MODEL positional and -o, the short spelling of --model/--output (which quantize_json uses).
    "$ge" quantize "$demo" --calib-data calib -o q.gem >quantize.txt
    grep -q 'decision' quantize.txt || fail "no table header: $(cat quantize.txt)"
    grep -Eq 'output cosine (0\.99|1\.0)' quantize.txt || fail "no output cosine summary: $(cat quantize.txt)"
    grep -q '^note fc: ARQ channel_wise turned off' quantize.txt || fail "no note for the Gemm's weight scale"
    ;;
  quantize_target_isa)
    # For a CPU without VNNI the Conv2D filters are quantized to 7 bits (the
    # int8 kernels then multiply them once); with VNNI they keep 8.
    write_calibration calib 1
    "$ge" quantize "$demo" --calib-data calib -o avx2.gem --record avx2.txt --target-isa avx2 --json >avx2.json
    "$ge" quantize "$demo" --calib-data calib -o vnni.gem --record vnni.txt --target-isa AVX512_CORE_VNNI \
      --json >vnni.json
    [[ $(grep -c 'wts_type: "INT7"' avx2.txt) == 2 ]] || fail "expected two INT7 Conv2D layers: $(cat avx2.txt)"
    ! grep -q 'INT7' vnni.txt || fail "VNNI target got 7-bit weights: $(cat vnni.txt)"
    check_json avx2.json 'assert doc["output_cosine"] > 0.99, doc["output_cosine"]'
    # The model runs on this CPU whatever it has, and gives the same output under any cap (the int8 sums
    # exactly; the float ops around them may round differently per instruction set).
    "$ge" run avx2.gem --loop 1 --output-dir native >/dev/null
    GE_MAX_CPU_ISA=SSE41 "$ge" run avx2.gem --loop 1 --output-dir capped >/dev/null
    python3 - native/probabilities.npy capped/probabilities.npy <<'PY' || fail "the output differs under GE_MAX_CPU_ISA=SSE41"
import struct, sys
def floats(path):
    data = open(path, "rb").read()
    start = 10 + struct.unpack("<H", data[8:10])[0]
    return struct.unpack("<%df" % ((len(data) - start) // 4), data[start:])
a, b = floats(sys.argv[1]), floats(sys.argv[2])
assert len(a) == len(b) == 10 and max(abs(x - y) for x, y in zip(a, b)) < 1e-5, (a, b)
PY
    expect_failure 1 "--target-isa is 'avx9'; valid values: SSE41" "$ge" quantize "$demo" --calib-data calib \
      -o bad.gem --target-isa avx9
    [[ ! -e bad.gem ]] || fail "bad.gem written despite the error"
    ;;
  quantize_errors)
    write_calibration calib 1
    expect_failure 2 'calib-data' "$ge" quantize --model "$demo" --output q.gem
    expect_failure 1 'nothing' "$ge" quantize --model "$demo" --calib-data nothing --output q.gem
    printf 'batch_num: 1\nactivation_ofset: true\n' >typo.txt
    expect_failure 1 'typo.txt:2' "$ge" quantize --model "$demo" --config typo.txt --calib-data calib --output q.gem
    printf 'batch_num: 4\n' >four.txt
    expect_failure 1 'batch_num is 4' "$ge" quantize --model "$demo" --config four.txt --calib-data calib \
      --output q.gem
    expect_failure 2 'target-cosine' "$ge" quantize --model "$demo" --calib-data calib --output q.gem \
      --target-cosine 2
    expect_failure 2 "both MODEL '$demo' and --model 'other.onnx'" "$ge" quantize "$demo" --model other.onnx \
      --calib-data calib -o q.gem
    [[ ! -e q.gem ]] || fail "a failed quantize left q.gem behind"
    touch file
    expect_failure 1 'cannot create directory file/report: Not a directory' "$ge" quantize "$demo" \
      --calib-data calib -o q.gem --report-dir file/report
    ;;
  *)
    fail "unknown case"
    ;;
esac
