#!/usr/bin/env bash
# The INT8 tables of docs/quantization.md: for each float model (ONNX, or a
# TensorFlow / TensorFlow.js model whose input dims are given), quantize it
# with `ge quantize`, then measure in the same run
#   - the output cosine against the float model on a held-out input (ge compare),
#   - how many candidate layers stayed INT8, and how long quantize took,
#   - the median latency of the float32 and the INT8 .gem (ge run --loop),
#   - the .gem file sizes.
#
# usage: benchmarks/quantize_table.sh WORK_DIR MODEL:CALIB_DIR:EVAL.npy[:D,D,..] [...]
#        (D,D,..: the input's shape, for models that leave dims unknown)
# env:   GE (default build/default/tools/ge), ITERS (default 30), THREADS (default 1),
#        CONFIG (an AMCT config for every model; default none: batch_num 1),
#        TARGET_COSINE (climb the fallback ladder to it; default none)
set -euo pipefail

if [[ $# -lt 2 || $1 == --help ]]; then
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
  [[ $# -ge 1 && $1 == --help ]] && exit 0 || exit 2
fi
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly repo
readonly ge=${GE:-$repo/build/default/tools/ge} iters=${ITERS:-30} threads=${THREADS:-1}
readonly work=$1
shift
mkdir -p "$work"
quantize_args=()
[[ -n ${CONFIG:-} ]] && quantize_args+=(--config "$CONFIG")
[[ -n ${TARGET_COSINE:-} ]] && quantize_args+=(--target-cosine "$TARGET_COSINE")

rows=()
for spec in "$@"; do
  IFS=: read -r model calib eval_input dims <<<"$spec"
  name=$(basename "$model")
  name=${name%.*}
  input_name=$("$ge" info "$model" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["inputs"][0]["name"])')
  import_args=()
  [[ -n $dims ]] && import_args=(--input_shape "$input_name:$dims")
  "$ge" compile --model "$model" "${import_args[@]}" --output "$work/$name.fp32.gem" --threads "$threads" >/dev/null
  "$ge" quantize --model "$model" "${import_args[@]}" --calib-data "$calib" --output "$work/$name.int8.gem" \
    --threads "$threads" "${quantize_args[@]}" --json >"$work/$name.quantize.json"
  "$ge" compare "$work/$name.fp32.gem" "$work/$name.int8.gem" --input "$input_name=$eval_input" --json \
    >"$work/$name.compare.json"
  for precision in fp32 int8; do
    "$ge" run "$work/$name.$precision.gem" --input "$input_name=$eval_input" --loop "$iters" --warmup 3 \
      --threads "$threads" --json >"$work/$name.$precision.run.json"
  done
  rows+=("$name")
done

python3 - "$work" "$threads" "$iters" "${rows[@]}" <<'PY'
import json, os, sys
work, threads, iters, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
load = lambda name: json.load(open(os.path.join(work, name)))
print(f"{threads} thread(s), median of {iters} runs")
print("| model | INT8 of candidate layers (all layers) | quantize s | output cosine (calibration) | "
      "output cosine (held-out) | fp32 ms | int8 ms | speed-up | fp32 .gem | int8 .gem |")
print("|---|---|---|---|---|---|---|---|---|---|")
for name in names:
    q, c = load(f"{name}.quantize.json"), load(f"{name}.compare.json")
    fp32, int8 = load(f"{name}.fp32.run.json"), load(f"{name}.int8.run.json")
    layers = q["layers"]
    quantized = sum(1 for l in layers if not l["decision"].startswith("skipped"))
    # Candidates: the layers no rule or config kept float (the ladder's float ones count).
    candidates = quantized + sum(1 for l in layers if l["decision"].startswith("skipped: fallback"))
    f_ms, i_ms = fp32["latency_ms"]["median"], int8["latency_ms"]["median"]
    mib = lambda f: os.path.getsize(os.path.join(work, f)) / 2**20
    print(f"| {name} | {quantized}/{candidates} ({len(layers)}) | {q['seconds']:.1f} | {q['output_cosine']:.5f} | "
          f"{c['output_cosine']:.5f} | {f_ms:.2f} | {i_ms:.2f} | {f_ms / i_ms:.2f}x | "
          f"{mib(name + '.fp32.gem'):.1f} MiB | {mib(name + '.int8.gem'):.1f} MiB |")
PY
