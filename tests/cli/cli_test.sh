#!/usr/bin/env bash
# One black-box test case of the `ge` tool.
# usage: cli_test.sh CASE GE_BINARY MAKE_DEMO_MODEL_BINARY REPO_ROOT WORK_DIR
set -euo pipefail

readonly case_name=$1 ge=$2 make_demo_model=$3 repo=$4 work=$5
readonly demo="$repo/models/demo_cnn.onnx"
rm -rf "$work"
mkdir -p "$work"
cd "$work"

source "$(dirname "${BASH_SOURCE[0]}")/test_helpers.sh"

readonly run_checks='
for key in ("latency_ms", "peak_rss_mb", "baseline_rss_mb", "memory", "outputs", "compile_ms"):
    assert key in doc, f"missing key {key}"
lat = doc["latency_ms"]
assert 0 < lat["min"] <= lat["median"] <= lat["p90"] <= lat["p99"], lat
assert 0 < doc["baseline_rss_mb"] <= doc["peak_rss_mb"], doc
mem = doc["memory"]
for key in ("const_bytes", "arena_bytes", "no_reuse_bytes", "lower_bound_bytes"):
    assert isinstance(mem[key], int), key
assert mem["lower_bound_bytes"] <= mem["arena_bytes"] <= mem["no_reuse_bytes"], mem
assert [o["name"] for o in doc["outputs"]] == ["probabilities"], doc["outputs"]
stats, timed = doc["run_stats"], doc["timed_run_stats"]
assert stats["runs"] == stats["planned_runs"] >= timed["runs"] > 0, (stats, timed)  # a static model: every run planned
assert stats["node_by_node_runs"] == stats["plans_compiled"] == stats["kernels_built"] == 0, stats
assert timed["buffer_allocations"] == 0 and stats["buffer_allocations"] >= 1, (stats, timed)  # its arena, before
out = doc["outputs"][0]
assert out["dtype"] == "float32" and out["shape"] == [1, 10], out
'

# The probabilities written by a run: a float32 [1,10] .npy whose values are
# non-negative and sum to 1. Read without numpy, which CI's python may lack.
check_softmax_file() {
  python3 - "$1" <<'PY'
import ast, struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:6] == b"\x93NUMPY", "not a .npy file"
header_len = struct.unpack_from("<H", data, 8)[0]
header = ast.literal_eval(data[10:10 + header_len].decode("latin1"))
assert header["descr"] == "<f4" and header["shape"] == (1, 10) and not header["fortran_order"], header
values = struct.unpack_from("<10f", data, 10 + header_len)
assert min(values) >= 0 and abs(sum(values) - 1.0) < 1e-5, values
PY
}

# write_zeros_npy FILE [DESCR DIMS]: a .npy of zeros (version 1.0 header, padded
# to 64 bytes), by default float32 [1,3,32,32]; e.g. write_zeros_npy f.npy '<i4' '1, 3, 16, 16'.
write_zeros_npy() {
  python3 - "$1" "${2:-<f4}" "${3:-1, 3, 32, 32}" <<'PY'
import math, struct, sys
path, descr, dims = sys.argv[1], sys.argv[2], [int(d) for d in sys.argv[3].split(",")]
header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s,), }" % (descr, ", ".join(map(str, dims)))
header += " " * (64 - 10 - len(header) - 1) + "\n"
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
    f.write(bytes(int(descr[2:]) * math.prod(dims)))
PY
}

case $case_name in
  help)
    "$ge" --help >help.txt
    grep -q 'commands:' help.txt || fail "ge --help lists no commands"
    grep -q 'ge --version' help.txt || fail "ge --help does not mention --version"
    for command in compile run info viz quantize compare; do
      "$ge" "$command" --help >help.txt || fail "ge $command --help failed"
      grep -q "^usage: ge $command" help.txt || fail "ge $command --help: no usage line"
      grep -q -- '--json' help.txt || fail "ge $command --help does not list --json"
    done
    ;;
  run_json)
    "$ge" run "$demo" --json --loop 3 --warmup 1 --output-dir out >run.json
    check_json run.json "$run_checks"
    check_json run.json 'assert doc["outputs"][0]["file"] == "out/probabilities.npy", doc["outputs"]'
    check_softmax_file out/probabilities.npy
    ;;
  run_human)
    "$ge" run "$demo" --loop 2 >run.txt
    for word in probabilities latency 'peak RSS' memory arena 'lower bound'; do
      grep -q "$word" run.txt || fail "human report lacks '$word': $(cat run.txt)"
    done
    ;;
  compile_then_run_gem)
    "$ge" compile --model "$demo" --output demo.gem --json >compile.json
    check_json compile.json 'assert doc["output"] == "demo.gem" and doc["output_bytes"] > 0 and doc["compile_ms"] >= 0'
    [[ -s demo.gem ]] || fail "no demo.gem written"
    "$ge" run "$demo" --json --loop 1 --output-dir from_onnx >onnx.json
    "$ge" run demo.gem --json --loop 1 --output-dir from_gem >gem.json
    check_json gem.json "$run_checks"
    # Same model, same seeded inputs: the .gem must reproduce the ONNX run exactly.
    cmp from_onnx/probabilities.npy from_gem/probabilities.npy || fail ".gem output differs from the .onnx output"
    # ge run frees the weights its kernels packed unless told to keep them; the outputs are the same.
    "$ge" run "$demo" --option ge.exec.releasePackedConstants=0 --json --loop 1 --output-dir kept >kept.json
    cmp from_onnx/probabilities.npy kept/probabilities.npy || fail "keeping the packed weights changed the output"
    # The thread count is a load-time choice; other options are fixed in the file.
    "$ge" run demo.gem --threads 1 --json --loop 1 >gem1.json
    check_json gem1.json "$run_checks"
    expect_failure 1 'ge.exec.disableReuseMemory' "$ge" run demo.gem --option ge.exec.disableReuseMemory=1
    ;;
  info_onnx)
    "$ge" info "$demo" --json >info.json
    check_json info.json '
assert doc["format"] == "onnx"
assert [i["name"] for i in doc["inputs"]] == ["image"] and doc["inputs"][0]["shape"] == [1, 3, 32, 32]
assert [o["name"] for o in doc["outputs"]] == ["probabilities"]
assert doc["node_count"] == sum(doc["op_types"].values()) > 0
assert isinstance(doc["pass_timings"], list) and len(doc["pass_timings"]) > 0
plan = doc["plan"]
assert plan["dynamic"] is False and plan["steps"] > 0 and plan["streams"] >= 1 and plan["events"] >= 0, plan
assert plan["feature_bytes"] == doc["memory"]["arena_bytes"], plan
'
    "$ge" info "$demo" >info.txt
    for word in image probabilities 'op type' memory plan passes; do
      grep -q "$word" info.txt || fail "human info lacks '$word': $(cat info.txt)"
    done
    ;;
  cpu_isa_cap)
    # GE_MAX_CPU_ISA caps oneDNN and ge's own loops; ge info names the paths taken.
    GE_MAX_CPU_ISA=sse41 "$ge" info "$demo" --json >sse41.json
    check_json sse41.json '
assert doc["cpu"] == {"loops": "baseline", "onednn": "sse41", "int8": "u8 pairs", "bf16": "emulated"}, doc["cpu"]
'
    GE_MAX_CPU_ISA=AVX2 "$ge" info "$demo" --json >avx2.json
    check_json avx2.json '
assert doc["cpu"]["loops"] in ("avx2", "baseline") and doc["cpu"]["onednn"] in ("avx2", "sse41", "avx"), doc["cpu"]
assert doc["cpu"]["int8"] == "u8 pairs" and doc["cpu"]["bf16"] == "emulated", doc["cpu"]
'
    GE_MAX_CPU_ISA=sse41 "$ge" info "$demo" >info.txt
    grep -q "^cpu .*loops baseline, oneDNN sse41, int8 u8 pairs, bf16 emulated" info.txt ||
      fail "human info lacks the cpu line: $(cat info.txt)"
    expect_failure 1 "GE_MAX_CPU_ISA is 'avx3'; valid values: SSE41, AVX, AVX2" env GE_MAX_CPU_ISA=avx3 "$ge" run "$demo"
    ;;
  openmp_spin)
    # The tool runs with GOMP_SPINCOUNT=1000 (tools/ge/openmp_wait.h) unless the user chose a spin count or a
    # wait policy: read from the environment of the running process, which the tool set before re-executing.
    spin_count_of() {  # prints the GOMP_SPINCOUNT a running `ge run` ends up with, or "unset"
      env "$@" "$ge" run "$demo" --loop 100000000 >/dev/null 2>&1 &
      local pid=$! value=unset i
      for ((i = 0; i < 100; ++i)); do
        if [[ $(cat "/proc/$pid/cmdline" 2>/dev/null | tr '\0' ' ') == *"--loop 100000000"* ]] &&
          grep -q -z '^OMP_WAIT_POLICY=\|^GOMP_SPINCOUNT=' "/proc/$pid/environ" 2>/dev/null; then
          value=$(tr '\0' '\n' <"/proc/$pid/environ" | sed -n 's/^GOMP_SPINCOUNT=//p')
          break
        fi
        sleep 0.05
      done
      kill "$pid" 2>/dev/null
      wait "$pid" 2>/dev/null || true
      echo "${value:-unset}"
    }
    [[ $(spin_count_of) == 1000 ]] || fail "ge does not bound OpenMP spinning: $(spin_count_of)"
    [[ $(spin_count_of GOMP_SPINCOUNT=5) == 5 ]] || fail "ge overrode the user's GOMP_SPINCOUNT"
    [[ $(spin_count_of OMP_WAIT_POLICY=active) == unset ]] || fail "ge set GOMP_SPINCOUNT despite OMP_WAIT_POLICY"
    ;;
  info_gem)
    "$ge" compile --model "$demo" --output demo.gem >/dev/null
    "$ge" info demo.gem --json >info.json
    check_json info.json '
assert doc["format"] == "gem"
assert doc["gem"]["format_version"] >= 1 and doc["gem"]["producer"].startswith("ge "), doc["gem"]
'
    ;;
  input_file)
    # A .npy input of all zeros: the run must use it, not random data, so two
    # runs with different output dirs agree, and differ from the random-input run.
    write_zeros_npy zeros.npy
    "$ge" run "$demo" --input image=zeros.npy --loop 1 --output-dir zeros >/dev/null
    "$ge" run "$demo" --loop 1 --output-dir random >/dev/null
    check_softmax_file zeros/probabilities.npy
    ! cmp -s zeros/probabilities.npy random/probabilities.npy || fail "--input was ignored"
    expect_failure 1 'wrong.npy' "$ge" run "$demo" --input image=wrong.npy
    ;;
  missing_model)
    expect_failure 1 'no_such_model.onnx' "$ge" run no_such_model.onnx
    expect_failure 1 'no_such_model.onnx' "$ge" info no_such_model.onnx
    expect_failure 1 'no_such_model.onnx' "$ge" compile --model no_such_model.onnx --output x.gem
    ;;
  bad_flag)
    expect_failure 2 "unknown option '--frobnicate'" "$ge" run "$demo" --frobnicate
    expect_failure 2 "unknown command 'fly'" "$ge" fly
    expect_failure 2 '--loop expects an integer' "$ge" run "$demo" --loop zero
    expect_failure 2 '--model' "$ge" compile --output x.gem
    ;;
  bad_option_value)
    expect_failure 1 'ge.no_such_option' "$ge" run "$demo" --option ge.no_such_option=1
    expect_failure 2 'KEY=VALUE' "$ge" run "$demo" --option novalue
    ;;
  unknown_input)
    expect_failure 1 "'image'" "$ge" run "$demo" --input nosuchinput=x.npy
    ;;
  run_profile)
    "$ge" run "$demo" --loop 1 --profile trace.json >/dev/null
    check_json trace.json '
events = doc["traceEvents"]
spans = [e for e in events if e["ph"] == "X"]
counters = [e for e in events if e["ph"] == "C"]
assert spans and len(counters) == len(spans), (len(spans), len(counters))
assert any(e["name"] == "Conv2D" for e in spans), [e["name"] for e in spans]
for e in spans:
    assert e["dur"] >= 0 and e["ts"] >= 0 and "node" in e["args"] and "kernel" in e["args"], e
assert all(c["args"]["bytes"] >= 0 for c in counters)
assert doc["total_us"] > 0
'
    expect_failure 1 'cannot write' "$ge" run "$demo" --loop 1 --profile no_such_dir/trace.json
    ;;
  viz_files)
    "$ge" viz "$demo" -o graph.dot --memory memory.svg --json >viz.json
    check_json viz.json 'assert doc["graph"] == "graph.dot" and doc["steps"] > 0 and doc["buffers"] > 0, doc'
    grep -q '^digraph' graph.dot || fail "graph.dot is not a DOT graph"
    grep -q 'Conv2D' graph.dot || fail "graph.dot lacks the Conv2D nodes"
    python3 -c 'import sys, xml.etree.ElementTree as ET; ET.parse(sys.argv[1])' memory.svg || fail "memory.svg is not XML"
    grep -q '<rect' memory.svg || fail "memory.svg has no boxes"
    "$ge" viz "$demo" -o graph.svg >viz.txt
    grep -q '<svg' graph.svg || fail "graph.svg is not an SVG (rendered by Graphviz's dot)"
    ;;
  viz_errors)
    expect_failure 2 'extension' "$ge" viz "$demo" -o graph.txt
    expect_failure 2 '\-o FILE.svg' "$ge" viz "$demo"
    # Without Graphviz on PATH the error says so and nothing is left behind.
    expect_failure 1 'graphviz' env PATH=/nonexistent "$ge" viz "$demo" -o graph.svg
    [[ ! -e graph.svg && ! -e graph.svg.tmp && ! -e graph.svg.dot.tmp ]] || fail "a failed viz left files: $(ls)"
    ;;
  precision_flags)
    # ATC-spelled flags set the ge.* options; --report lists every node's mode.
    printf '# pinned\n[ByOpType]\nSoftmaxV2=high_precision\n[ByNodeName]\ngap=high_performance\n' >model.ini
    "$ge" compile --model "$demo" --output demo.gem --op_precision_mode model.ini --report report.json \
      --precision_mode must_keep_origin_dtype >stdout.txt 2>stderr.txt || fail "compile failed: $(cat stderr.txt)"
    [[ ! -s stderr.txt ]] || fail "unexpected stderr: $(cat stderr.txt)"
    check_json report.json '
modes = {r["node"]: r for r in doc["impl_modes"]}
for r in doc["impl_modes"]:
    assert set(r) == {"node", "op_type", "dtype", "requested", "applied", "reason"}, r
assert modes["softmax"]["op_type"] == "SoftmaxV2" and modes["softmax"]["dtype"] == "float32", modes["softmax"]
assert modes["softmax"]["requested"] == "high_precision", modes["softmax"]
assert modes["softmax"]["applied"] == "high_precision", modes["softmax"]
assert "model.ini:3 [ByOpType]" in modes["softmax"]["reason"], modes["softmax"]
assert modes["gap"]["requested"] == "high_performance", modes["gap"]
assert "model.ini:5 [ByNodeName]" in modes["gap"]["reason"], modes["gap"]
assert modes["fc"]["requested"] == "" and "not in op_precision_mode" in modes["fc"]["reason"], modes["fc"]
'
    "$ge" info demo.gem --json >info.json
    check_json info.json 'assert {r["node"]: r["applied"] for r in doc["impl_modes"]}["gap"] == "high_performance"'
    "$ge" info demo.gem >info.txt
    grep -q 'model.ini:5 \[ByNodeName\]' info.txt || fail "ge info does not show the modes: $(cat info.txt)"
    # op_select_implmode works, with its deprecation notice printed once.
    "$ge" compile --model "$demo" --output hp.gem --op_select_implmode high_precision \
      --optypelist_for_implmode SoftmaxV2 --report hp.json >stdout.txt 2>stderr.txt || fail "$(cat stderr.txt)"
    [[ $(grep -c 'deprecated' stderr.txt) == 1 ]] || fail "expected one deprecation notice: $(cat stderr.txt)"
    grep -q 'op_precision_mode' stderr.txt || fail "the notice does not recommend op_precision_mode"
    check_json hp.json '
modes = {r["node"]: r for r in doc["impl_modes"]}
assert modes["softmax"]["requested"] == "high_precision", modes["softmax"]
assert "optypelist_for_implmode" in modes["softmax"]["reason"], modes["softmax"]
assert all(r["requested"] == "" for n, r in modes.items() if n != "softmax"), modes
'
    ;;
  precision_errors)
    expect_failure 1 'high_performance_for_all' "$ge" compile --model "$demo" --output x.gem --op_select_implmode fast
    expect_failure 1 'ge.optypelistForImplmode' "$ge" compile --model "$demo" --output x.gem \
      --op_select_implmode high_precision_for_all --optypelist_for_implmode SoftmaxV2
    expect_failure 1 'together' "$ge" compile --model "$demo" --output x.gem \
      --precision_mode force_fp32 --precision_mode_v2 origin
    expect_failure 1 'missing.ini' "$ge" compile --model "$demo" --output x.gem --op_precision_mode missing.ini
    printf 'SoftmaxV2=high_precision\nRelu high_precision\n' >malformed.ini
    expect_failure 1 'malformed.ini:2:' "$ge" compile --model "$demo" --output x.gem --op_precision_mode malformed.ini
    printf '[ByOpType]\nSoftmaxV2=super_performance\n' >unoffered.ini
    expect_failure 1 'unoffered.ini:2:.*SoftmaxV2.*high_precision' "$ge" compile --model "$demo" --output x.gem \
      --op_precision_mode unoffered.ini
    expect_failure 2 'given twice' "$ge" compile --model "$demo" --output x.gem --precision_mode force_fp32 \
      --option ge.exec.precision_mode=force_fp32
    [[ ! -e x.gem ]] || fail "a failed compile left x.gem"
    ;;
  compile_tensorflow)
    # ATC's spelling on a TensorFlow GraphDef (text form) whose batch dim is unknown: --framework 3, the
    # placeholder's shape from --input_shape, one of two sinks as the output with --out_nodes.
    cat >net.pbtxt <<'PB'
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: -1 } dim { size: 4 } } } } }
node { name: "w" op: "Const" attr { key: "value" value { tensor { dtype: DT_FLOAT
       tensor_shape { dim { size: 4 } dim { size: 2 } } float_val: 0.5 } } } }
node { name: "y" op: "MatMul" input: "x" input: "w" }
node { name: "relu" op: "Relu" input: "y" }
node { name: "neg" op: "Neg" input: "y" }
PB
    "$ge" compile net.pbtxt --framework 3 --input_shape "x:2,4" --out_nodes "relu:0" -o net.gem --json >compile.json
    check_json compile.json 'assert doc["output"] == "net.gem" and doc["output_bytes"] > 0, doc'
    "$ge" info net.gem --json >info.json
    check_json info.json '
assert [i["shape"] for i in doc["inputs"]] == [[2, 4]], doc["inputs"]
assert [(o["name"], o["shape"]) for o in doc["outputs"]] == [("relu", [2, 2])], doc["outputs"]'
    "$ge" run net.gem --json --loop 1 >run.json
    check_json run.json 'assert [(o["name"], o["shape"]) for o in doc["outputs"]] == [("relu", [2, 2])], doc'
    # ge run takes the same import flags: a static model at the given shape, with the chosen output.
    "$ge" run net.pbtxt --input_shape "x:3,4" --out_nodes "neg:0" --json --loop 1 >run_tf.json
    check_json run_tf.json '
assert [(o["name"], o["shape"]) for o in doc["outputs"]] == [("neg", [3, 2])], doc["outputs"]
assert not doc["memory"]["dynamic"], doc["memory"]'
    expect_failure 2 "is an ONNX model" "$ge" run "$demo" --input_shape "x:3,4"
    expect_failure 1 'says Caffe' "$ge" compile net.pbtxt --framework 0 -o bad.gem
    expect_failure 2 'valid: 0 Caffe, 3 TensorFlow, 5 ONNX' "$ge" compile net.pbtxt --framework 7 -o bad.gem
    expect_failure 1 'says ONNX' "$ge" compile net.pbtxt --framework 5 -o bad.gem
    expect_failure 2 "'a' is not a dim" "$ge" compile net.pbtxt --input_shape "x:2,a" -o bad.gem
    expect_failure 1 "'y', which is not a placeholder" "$ge" compile net.pbtxt --input_shape "y:2,4" -o bad.gem
    expect_failure 1 "output 'nowhere' is not a tensor" "$ge" compile net.pbtxt --out_nodes "nowhere" -o bad.gem
    expect_failure 2 'applies to TensorFlow models' "$ge" compile "$demo" --out_nodes relu -o bad.gem
    [[ ! -e bad.gem ]] || fail "a failed compile wrote bad.gem"
    ;;
  compile_caffe)
    # ATC's --framework 0 and --weight: a Caffe net whose InnerProduct weights come from the weight file
    # (here a text NetParameter is enough to show the flag is read: the binary form is tested in tests/caffe).
    cat >net.prototxt <<'PB'
name: "tiny"
layer { name: "data" type: "Input" top: "data" input_param { shape { dim: 1 dim: 4 } } }
layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip" inner_product_param { num_output: 2 bias_term: false } }
layer { name: "relu" type: "ReLU" bottom: "ip" top: "ip" }
PB
    expect_failure 1 "no weights for it" "$ge" compile net.prototxt --framework 0 -o bad.gem
    python3 - <<'PY'
# The weights as a binary NetParameter: layer (100) { name (1): "ip", blobs (7) { shape (7) { dim (1) } data (5) } }.
import struct
def varint(v):
    out = b""
    while True:
        low, v = v & 0x7F, v >> 7
        out += bytes([low | (0x80 if v else 0)])
        if not v:
            return out
def field(number, payload):
    return varint(number << 3 | 2) + varint(len(payload)) + payload
shape = field(7, field(1, varint(2) + varint(4)))
data = field(5, struct.pack("<8f", *[0.25] * 8))
layer = field(1, b"ip") + field(7, shape + data)
open("trained.caffemodel", "wb").write(field(100, layer))
PY
    "$ge" compile net.prototxt --framework 0 --weight trained.caffemodel -o net.gem --json >compile.json
    check_json compile.json 'assert doc["output"] == "net.gem", doc'
    "$ge" run net.gem --json --loop 1 >run.json
    check_json run.json 'assert [(o["name"], o["shape"]) for o in doc["outputs"]] == [("ip", [1, 2])], doc'
    expect_failure 2 'applies to Caffe nets' "$ge" compile "$demo" --weight trained.caffemodel -o bad.gem
    expect_failure 1 'says TensorFlow' "$ge" compile net.prototxt --framework 3 -o bad.gem
    [[ ! -e bad.gem ]] || fail "a failed compile wrote bad.gem"
    ;;
  compile_short_forms)
    # MODEL may be positional and -o is --output; the older --model/--output spelling writes the same file.
    "$ge" compile "$demo" -o short.gem >/dev/null
    "$ge" compile --model "$demo" --output long.gem >/dev/null
    "$ge" compile "$demo" --output=mixed.gem --json >mixed.json
    check_json mixed.json 'assert doc["model"].endswith("demo_cnn.onnx") and doc["output"] == "mixed.gem", doc'
    [[ -s short.gem && -s long.gem ]] || fail "compile wrote no .gem"
    "$ge" run short.gem --loop 1 --output-dir short >/dev/null
    "$ge" run long.gem --loop 1 --output-dir long >/dev/null
    cmp short/probabilities.npy long/probabilities.npy || fail "the two spellings compiled different models"
    expect_failure 2 "both MODEL '$demo' and --model 'other.onnx'" "$ge" compile "$demo" --model other.onnx -o x.gem
    expect_failure 2 'MODEL or --model' "$ge" compile -o x.gem
    expect_failure 2 '\-o FILE.gem' "$ge" compile "$demo"
    [[ ! -e x.gem ]] || fail "a usage error wrote x.gem"
    ;;
  version)
    version=$(sed -n 's/^project(ge VERSION \([0-9.]*\).*/\1/p' "$repo/CMakeLists.txt")
    [[ -n $version ]] || fail "no project version in CMakeLists.txt"
    "$ge" --version >version.txt
    [[ $(wc -l <version.txt) == 1 ]] || fail "--version is not one line: $(cat version.txt)"
    abi_major=$(sed -n 's/^#define GE_C_ABI_MAJOR \([0-9]*\)$/\1/p' "$repo/include/ge_c/ge_c.h")
    abi_minor=$(sed -n 's/^#define GE_C_ABI_MINOR \([0-9]*\)$/\1/p' "$repo/include/ge_c/ge_c.h")
    [[ -n $abi_major && -n $abi_minor ]] || fail "no C ABI version in include/ge_c/ge_c.h"
    grep -qx "ge $version (C ABI $abi_major\.$abi_minor)" version.txt || fail "--version: $(cat version.txt)"
    "$ge" -V | cmp - version.txt || fail "-V differs from --version"
    "$ge" --version --json >version.json
    check_json version.json "
assert doc['ge'] == '$version', doc
assert doc['c_abi'] == '$abi_major.$abi_minor', doc
assert set(doc) == {'ge', 'c_abi'}, doc
"
    expect_failure 2 "unknown option '--jsn' for 'ge --version'; did you mean '--json'?" "$ge" --version --jsn
    ;;
  did_you_mean)
    expect_failure 2 "unknown option '--loops' for 'ge run'; did you mean '--loop'?" "$ge" run "$demo" --loops 3
    expect_failure 2 "unknown option '-loop' for 'ge run'; did you mean '--loop'?" "$ge" run "$demo" -loop 3
    expect_failure 2 "did you mean '--precision_mode'?" "$ge" compile "$demo" -o x.gem --precision-mode force_fp32
    expect_failure 2 "unknown command 'complie'; did you mean 'compile'?" "$ge" complie "$demo"
    expect_failure 2 "unknown command '--verison'; did you mean '--version'?" "$ge" --verison
    # Nothing is suggested when nothing is close.
    expect_failure 2 "unknown command 'fly'; the commands are compile, run, info, viz, quantize, compare" "$ge" fly
    ! grep -q 'did you mean' stderr.txt || fail "a far-off command got a suggestion: $(cat stderr.txt)"
    expect_failure 1 "unknown option 'ge.exec.disableReuseMemry'; did you mean 'ge.exec.disableReuseMemory'?" \
      "$ge" run "$demo" --option ge.exec.disableReuseMemry=1
    # Loading a .gem takes only load-time options: a typo of one is still reported as a typo.
    "$ge" compile "$demo" -o demo.gem >/dev/null
    expect_failure 1 "did you mean 'ge.exec.intraOpThreads'?" "$ge" run demo.gem --option ge.exec.intraOpThread=1
    expect_failure 1 "did you mean 'image'?" "$ge" run "$demo" --input imag=x.npy
    ;;
  repeated_input)
    write_zeros_npy a.npy
    write_zeros_npy b.npy
    expect_failure 2 "--input 'image' is given twice (a.npy and b.npy)" \
      "$ge" run "$demo" --input image=a.npy --input image=b.npy
    expect_failure 2 "--input 'image' is given twice" \
      "$ge" compare "$demo" "$demo" --input image=a.npy --input image=a.npy
    ;;
  input_file_errors)
    write_zeros_npy small.npy '<f4' '1, 3, 16, 16'
    write_zeros_npy ints.npy '<i4' '1, 3, 32, 32'
    expect_failure 1 "input 'image' from small.npy: expected float32 \[1,3,32,32\], got float32 \[1,3,16,16\]" \
      "$ge" run "$demo" --input image=small.npy
    expect_failure 1 "input 'image' from ints.npy: expected float32 \[1,3,32,32\], got int32 \[1,3,32,32\]" \
      "$ge" run "$demo" --input image=ints.npy
    expect_failure 1 "input 'image' from small.npy" "$ge" compare "$demo" "$demo" --input image=small.npy
    mkdir folder.npy
    expect_failure 1 'folder.npy: cannot read .npy file: it is a directory, not a regular file' "$ge" run "$demo" --input image=folder.npy
    expect_failure 1 'missing.npy: cannot read .npy file: No such file or directory' "$ge" run "$demo" --input image=missing.npy
    ;;
  unwritable_outputs)
    # Each error is one line naming the path the user gave and the reason (the
    # helper also rejects temporary file names and C++ exception text).
    touch file
    mkdir folder folder.gem folder.svg
    expect_failure 1 'cannot write nofolder/x.svg: No such file or directory' "$ge" viz "$demo" -o nofolder/x.svg
    expect_failure 1 'cannot write file/x.svg: Not a directory' "$ge" viz "$demo" -o file/x.svg
    expect_failure 1 'cannot write folder.svg: Is a directory' "$ge" viz "$demo" -o folder.svg
    expect_failure 1 'cannot write nofolder/x.dot: No such file or directory' "$ge" viz "$demo" -o nofolder/x.dot
    expect_failure 1 'cannot write nofolder/m.svg: No such file or directory' "$ge" viz "$demo" --memory nofolder/m.svg
    expect_failure 1 'nofolder/x.gem.*No such file or directory' "$ge" compile "$demo" -o nofolder/x.gem
    expect_failure 1 'folder.gem.*Is a directory' "$ge" compile "$demo" -o folder.gem
    expect_failure 1 'cannot write nofolder/r.json: No such file or directory' \
      "$ge" compile "$demo" -o x.gem --report nofolder/r.json
    [[ ! -e x.gem ]] || fail "a failed 'ge compile --report' left its model x.gem behind"
    expect_failure 1 'cannot create directory file: Not a directory' "$ge" run "$demo" --loop 1 --output-dir file
    expect_failure 1 'cannot create directory file/out: Not a directory' \
      "$ge" run "$demo" --loop 1 --output-dir file/out
    expect_failure 1 'cannot write folder: Is a directory' "$ge" run "$demo" --loop 1 --profile folder
    expect_failure 1 'cannot write nofolder/c.csv: No such file or directory' \
      "$ge" compare "$demo" "$demo" --csv nofolder/c.csv
    [[ -z $(find . -name '*.tmp') ]] || fail "failed writes left temporary files: $(find . -name '*.tmp')"
    ;;
  unreadable_model)
    mkdir folder.onnx
    expect_failure 1 'folder.onnx: cannot read model file: it is a directory, not a regular file' "$ge" run folder.onnx
    expect_failure 1 'folder.onnx: cannot read model file: it is a directory, not a regular file' "$ge" compile folder.onnx -o x.gem
    expect_failure 1 'folder.onnx: cannot read model file: it is a directory, not a regular file' "$ge" info folder.onnx
    expect_failure 1 'folder.onnx: cannot read model file: it is a directory, not a regular file' "$ge" viz folder.onnx -o x.dot
    expect_failure 1 'folder.onnx: cannot read model file: it is a directory, not a regular file' "$ge" compare "$demo" folder.onnx
    expect_failure 1 'missing.onnx: cannot read model file: No such file or directory' "$ge" compile missing.onnx -o x.gem
    ;;
  docs_match_help)
    # docs/cli.md shows each command's --help verbatim, so the page cannot drift from the tool.
    for command in compile run info viz quantize compare --version; do
      "$ge" "$command" --help >"help_$command.txt"
    done
    "$ge" --help >help_tool.txt
    python3 - "$repo/docs/cli.md" help_*.txt <<'PY' || fail "docs/cli.md does not show the --help text above"
import sys
doc = open(sys.argv[1]).read()
missing = [path for path in sys.argv[2:] if open(path).read() not in doc]
for path in missing:
    print(f"docs/cli.md lacks the text of {path}:\n{open(path).read()}", file=sys.stderr)
sys.exit(1 if missing else 0)
PY
    ;;
  demo_model_reproducible)
    "$make_demo_model" regenerated.onnx
    cmp regenerated.onnx "$demo" || fail "models/demo_cnn.onnx differs from what tools/make_demo_model writes"
    ;;
  *)
    fail "unknown test case"
    ;;
esac
echo "PASS ($case_name)"
