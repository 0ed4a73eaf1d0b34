#!/usr/bin/env bash
# Runs one ONNX model with ge and with ONNX Runtime (../shared/peer/ort-bench)
# on the same machine and prints latency and peak memory side by side.
#
# usage: benchmarks/compare_ort.sh MODEL.onnx [THREADS]
# env:   GE (default build/default/tools/ge), ITERS (default 50), ORT_BENCH
#
# ORT's peak RSS is that of a whole node process, so its baseline (node before
# loading the model) is subtracted; ge's is the whole ge process, as a user sees it.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 || $1 == --help ]]; then
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
  [[ $# -ge 1 && $1 == --help ]] && exit 0 || exit 2
fi
readonly model=$1 threads=${2:-1}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly repo
readonly ge=${GE:-$repo/build/default/tools/ge}
readonly ort_bench=${ORT_BENCH:-$repo/../shared/peer/ort-bench}
readonly iters=${ITERS:-50}

[[ -x $ge ]] || { echo "compare_ort: error: no ge binary at $ge (build first: bash scripts/build.sh)" >&2; exit 1; }
[[ -x $ort_bench ]] || { echo "compare_ort: error: no ort-bench at $ort_bench" >&2; exit 1; }
[[ -f $model ]] || { echo "compare_ort: error: no model file $model" >&2; exit 1; }

ge_json=$("$ge" run "$model" --json --loop "$iters" --warmup 3 --threads "$threads")
ort_json=$("$ort_bench" "$model" --threads "$threads" --iters "$iters" --warmup 3 | tail -n 1)

python3 - "$model" "$threads" "$iters" "$ge_json" "$ort_json" <<'PY'
import json, sys
model, threads, iters = sys.argv[1:4]
ge, ort = json.loads(sys.argv[4]), json.loads(sys.argv[5])
ge_ms, ort_ms = ge["latency_ms"]["median"], ort["median_ms"]
ge_mb, ort_mb = ge["peak_rss_mb"], ort["peak_rss_mb"] - ort["baseline_rss_mb"]
ratio = lambda a, b: f"{a / b:.2f}" if b > 0 else "n/a"
print(f"{model}: {threads} thread(s), median of {iters} runs")
print(f"{'':16}{'ge':>10}{'ORT':>10}{'ge/ORT':>8}")
print(f"{'latency (ms)':16}{ge_ms:10.3f}{ort_ms:10.3f}{ratio(ge_ms, ort_ms):>8}")
print(f"{'peak RSS (MB)':16}{ge_mb:10.1f}{ort_mb:10.1f}{ratio(ge_mb, ort_mb):>8}")
PY
