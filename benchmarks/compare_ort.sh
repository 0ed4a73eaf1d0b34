#!/usr/bin/env bash
# Runs ONNX models with ge and with ONNX Runtime (../shared/peer/ort-bench) on
# the same machine and prints latency, peak memory and preparation time side by side.
#
# usage: benchmarks/compare_ort.sh [--threads 1,2] [--json] MODEL.onnx [MODEL.onnx ...]
#        benchmarks/compare_ort.sh MODEL.onnx THREADS      (one model, one thread count)
# env:   GE (default build/default/tools/ge), ITERS (default 50), ORT_BENCH
#
# Each model and thread count runs ge, then ORT, then the next pair (interleaved).
# Latency: median of ITERS runs after 3 warm-up runs. Memory (peak RSS, MB): ORT's
# is node's peak minus its baseline (node with onnxruntime imported, before the
# model); "ge MB" is the whole `ge run MODEL.onnx` process, "ge-base" the same
# minus ge's own baseline (like ORT's), ".gem MB" the whole `ge run MODEL.gem`.
# compile: ge's import + compile from ONNX; ORT load: its session creation;
# .gem load: `ge run` on the .gem that `ge compile` wrote (median of 5 processes).
set -euo pipefail

usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; }

threads_list=1 json=0 models=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --help) usage; exit 0 ;;
    --threads) [[ $# -ge 2 ]] || { echo "compare_ort: error: --threads needs a value such as 1,2" >&2; exit 2; }
               threads_list=$2; shift 2 ;;
    --json) json=1; shift ;;
    -*) echo "compare_ort: error: unknown option '$1' (valid: --threads, --json, --help)" >&2; exit 2 ;;
    *) models+=("$1"); shift ;;
  esac
done
# The older form: MODEL THREADS.
if [[ ${#models[@]} -eq 2 && ${models[1]} =~ ^[0-9]+$ ]]; then
  threads_list=${models[1]}
  models=("${models[0]}")
fi
[[ ${#models[@]} -ge 1 ]] || { usage >&2; exit 2; }
[[ $threads_list =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] ||
  { echo "compare_ort: error: --threads '$threads_list' is not a comma-separated list of positive counts" >&2; exit 2; }

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly repo
readonly ge=${GE:-$repo/build/default/tools/ge}
readonly ort_bench=${ORT_BENCH:-$repo/../shared/peer/ort-bench}
readonly iters=${ITERS:-50}

[[ -x $ge ]] || { echo "compare_ort: error: no ge binary at $ge (build first: bash scripts/build.sh)" >&2; exit 1; }
[[ -x $ort_bench ]] || { echo "compare_ort: error: no ort-bench at $ort_bench" >&2; exit 1; }
for model in "${models[@]}"; do
  [[ -f $model ]] || { echo "compare_ort: error: no model file $model" >&2; exit 1; }
done

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

rows=$scratch/rows.jsonl
for model in "${models[@]}"; do
  gem=$scratch/$(basename "${model%.onnx}").gem
  "$ge" compile --model "$model" --output "$gem" --json >/dev/null
  # A load is a few milliseconds: the median of five, each in a fresh process.
  gem_runs=()
  for _ in 1 2 3 4 5; do gem_runs+=("$("$ge" run "$gem" --json --loop 1)"); done
  gem_json=$(python3 -c '
import json, sys
runs = [json.loads(text) for text in sys.argv[1:]]
runs.sort(key=lambda run: run["compile_ms"])
print(json.dumps(runs[len(runs) // 2]))' "${gem_runs[@]}")
  IFS=, read -ra counts <<<"$threads_list"
  for threads in "${counts[@]}"; do
    [[ $json == 1 ]] || echo "compare_ort: $(basename "$model"), $threads thread(s)..." >&2
    ge_json=$("$ge" run "$model" --json --loop "$iters" --warmup 3 --threads "$threads")
    ort_json=$("$ort_bench" "$model" --threads "$threads" --iters "$iters" --warmup 3 | tail -n 1)
    python3 - "$model" "$threads" "$ge_json" "$ort_json" "$gem_json" >>"$rows" <<'PY'
import json, os, sys
model, threads = sys.argv[1:3]
ge, ort, gem = (json.loads(text) for text in sys.argv[3:6])
print(json.dumps({
    "model": os.path.basename(model).removesuffix(".onnx"), "threads": int(threads),
    "ge_ms": ge["latency_ms"]["median"], "ort_ms": ort["median_ms"],
    "ge_rss_mb": ge["peak_rss_mb"], "ort_rss_mb": ort["peak_rss_mb"] - ort["baseline_rss_mb"],
    "ge_model_rss_mb": ge["peak_rss_mb"] - ge["baseline_rss_mb"], "gem_rss_mb": gem["peak_rss_mb"],
    "ge_compile_ms": ge["compile_ms"], "ort_load_ms": ort["load_ms"], "gem_load_ms": gem["compile_ms"],
}))
PY
  done
done

python3 - "$iters" "$json" "$rows" <<'PY'
import json, sys
iters, as_json, path = int(sys.argv[1]), sys.argv[2] == "1", sys.argv[3]
rows = [json.loads(line) for line in open(path)]
for row in rows:
    row["latency_ratio"] = row["ge_ms"] / row["ort_ms"]
    for key in ("ge_rss_mb", "ge_model_rss_mb", "gem_rss_mb"):
        row[key.replace("_mb", "_ratio")] = row[key] / row["ort_rss_mb"] if row["ort_rss_mb"] > 0 else None
if as_json:
    print(json.dumps({"iters": iters, "rows": rows}))
    sys.exit(0)
head = ("model", "thr", "ge ms", "ORT ms", "ratio", "ORT MB", "ge MB", "ratio", "ge-base", "ratio", ".gem MB",
        "ratio", "compile ms", "ORT load", ".gem ms")
widths = (15, 4, 8, 8, 7, 8, 7, 7, 8, 7, 8, 7, 11, 9, 8)
share = lambda ratio: f"{ratio:.2f}" if ratio is not None else "n/a"
print("".join(f"{h:>{w}}" if i else f"{h:<{w}}" for i, (h, w) in enumerate(zip(head, widths))))
for r in rows:
    cells = (r["model"], r["threads"], f"{r['ge_ms']:.2f}", f"{r['ort_ms']:.2f}", f"{r['latency_ratio']:.2f}",
             f"{r['ort_rss_mb']:.1f}", f"{r['ge_rss_mb']:.1f}", share(r["ge_rss_ratio"]), f"{r['ge_model_rss_mb']:.1f}",
             share(r["ge_model_rss_ratio"]), f"{r['gem_rss_mb']:.1f}", share(r["gem_rss_ratio"]),
             f"{r['ge_compile_ms']:.1f}", f"{r['ort_load_ms']:.1f}", f"{r['gem_load_ms']:.1f}")
    print("".join(f"{c:>{w}}" if i else f"{c:<{w}}" for i, (c, w) in enumerate(zip(cells, widths))))
print(f"median of {iters} runs after 3 warm-up; memory ratios against ORT MB (its peak minus its baseline)")
PY
