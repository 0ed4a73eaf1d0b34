#!/usr/bin/env bash
# Greedy KV-cache decoding with ge (ge_decode_benchmark) and ONNX Runtime
# (ort_decode.mjs, through the onnxruntime-node that ../shared/peer/ort-bench
# installs), interleaved on one machine; prints a table or --json.
#
# usage: benchmarks/decode_compare.sh MODEL.onnx [--prompt N] [--tokens N] [--threads N] [--rounds N] [--bind]
#                                    [--ge-model MODEL.gem] [--json]
# env:   GE_DECODE (default build/default/benchmarks/ge_decode_benchmark), ORT_BENCH
#
# The model follows ge_decode_benchmark's contract (benchmarks/export_decoder.py
# writes one). Each round runs ge then ORT; the table gives each round's
# median ms/token, p90, the first run (ge: its kernels are built then; ORT
# builds them in session creation, not counted), the peak RSS above each
# process's baseline, and whether both generated the same tokens (and
# PyTorch's, when MODEL.tokens.json from export_decoder.py is there).
# --bind: ge binds the caches to caller buffers (ge_decode_benchmark --bind).
# --ge-model: ge runs this file (MODEL compiled by `ge compile`), ORT MODEL.
set -euo pipefail

usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; }
prompt=8 tokens=64 threads=1 rounds=3 json=0 bind=() model= ge_model=
while [[ $# -gt 0 ]]; do
  case $1 in
    --help) usage; exit 0 ;;
    --prompt|--tokens|--threads|--rounds)
      [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || { echo "decode_compare: error: $1 needs a positive count" >&2; exit 2; }
      declare "${1#--}=$2"; shift 2 ;;
    --json) json=1; shift ;;
    --bind) bind=(--bind); shift ;;
    --ge-model) [[ $# -ge 2 ]] || { echo "decode_compare: error: --ge-model needs a file" >&2; exit 2; }
                ge_model=$2; shift 2 ;;
    -*) echo "decode_compare: error: unknown option '$1' (valid: --prompt, --tokens, --threads, --rounds, --bind, --ge-model, --json)" >&2
        exit 2 ;;
    *) model=$1; shift ;;
  esac
done
[[ -n $model ]] || { usage >&2; exit 2; }
[[ -f $model ]] || { echo "decode_compare: error: no model file $model" >&2; exit 1; }
ge_model=${ge_model:-$model}
[[ -f $ge_model ]] || { echo "decode_compare: error: no model file $ge_model" >&2; exit 1; }

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ge=${GE_DECODE:-$repo/build/default/benchmarks/ge_decode_benchmark}
ort_bench=${ORT_BENCH:-$repo/../shared/peer/ort-bench}
[[ -x $ge ]] || { echo "decode_compare: error: no $ge (build first: bash scripts/build.sh)" >&2; exit 1; }
[[ -x $ort_bench ]] || { echo "decode_compare: error: no ort-bench at $ort_bench" >&2; exit 1; }
# ort-bench installs onnxruntime-node into its cache; ESM imports resolve from
# the script's folder, so the script goes there.
cache=${GE_PEER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ge-peer}
"$ort_bench" --help >/dev/null 2>&1 || true
[[ -d $cache/node_modules/onnxruntime-node ]] || { echo "decode_compare: error: onnxruntime-node is not installed in $cache" >&2; exit 1; }
cp "$repo/benchmarks/ort_decode.mjs" "$cache/"

rows=()
for ((round = 1; round <= rounds; ++round)); do
  [[ $json == 1 ]] || echo "decode_compare: round $round of $rounds..." >&2
  ge_json=$("$ge" "$ge_model" --prompt "$prompt" --tokens "$tokens" --threads "$threads" "${bind[@]}" --json)
  ort_json=$(node "$cache/ort_decode.mjs" "$model" "$prompt" "$tokens" "$threads" | tail -n 1)
  rows+=("$ge_json" "$ort_json")
done

python3 - "$json" "$model" "$prompt" "$tokens" "$threads" "${rows[@]}" <<'PY'
import json, os, sys
as_json, model, prompt, tokens, threads = sys.argv[1] == "1", *sys.argv[2:6]
runs = [json.loads(text) for text in sys.argv[6:]]
torch_tokens = None
if os.path.exists(model + ".tokens.json"):
    reference = json.load(open(model + ".tokens.json"))
    if reference["prompt"] == int(prompt) and reference["tokens"] >= int(tokens):
        torch_tokens = reference["generated"][:int(tokens) + 1]
pairs = [(runs[i], runs[i + 1]) for i in range(0, len(runs), 2)]
rows = []
for ge, ort in pairs:
    rows.append({"ge_ms": ge["median_ms"], "ort_ms": ort["median_ms"], "ratio": ge["median_ms"] / ort["median_ms"],
                 "ge_p90_ms": ge["p90_ms"], "ort_p90_ms": ort["p90_ms"],
                 "ge_first_ms": ge["prefill_ms"], "ort_first_ms": ort["prefill_ms"],
                 "ge_rss_mb": ge["rss_above_baseline_mb"], "ort_rss_mb": ort["rss_above_baseline_mb"],
                 "rss_ratio": ge["rss_above_baseline_mb"] / ort["rss_above_baseline_mb"],
                 "same_tokens": ge["generated"] == ort["generated"],
                 "ge_matches_pytorch": None if torch_tokens is None else ge["generated"] == torch_tokens,
                 "ort_matches_pytorch": None if torch_tokens is None else ort["generated"] == torch_tokens,
                 "ge_kernels_built": ge["kernels_built"],
                 "ge_buffer_allocations": ge["buffer_allocations"], "ge_plans": ge["plans"]})
if as_json:
    print(json.dumps({"model": os.path.basename(model), "prompt": int(prompt), "tokens": int(tokens),
                      "threads": int(threads), "rounds": rows}))
    sys.exit(0)
print(f"{os.path.basename(model)}: {tokens} tokens after a {prompt}-token prompt, {threads} thread(s)")
head = ("round", "ge ms", "ORT ms", "ratio", "ge p90", "ORT p90", "ge 1st", "ORT 1st", "ge MB", "ORT MB", "ratio", "tokens",
        "PyTorch")
widths = (6, 8, 8, 7, 8, 8, 8, 8, 7, 7, 7, 8, 9)
agree = lambda r: "n/a" if r["ge_matches_pytorch"] is None else (
    "same" if r["ge_matches_pytorch"] and r["ort_matches_pytorch"] else "DIFFER")
print("".join(f"{h:>{w}}" for h, w in zip(head, widths)))
for i, r in enumerate(rows, 1):
    cells = (i, f"{r['ge_ms']:.3f}", f"{r['ort_ms']:.3f}", f"{r['ratio']:.2f}", f"{r['ge_p90_ms']:.3f}",
             f"{r['ort_p90_ms']:.3f}", f"{r['ge_first_ms']:.1f}", f"{r['ort_first_ms']:.1f}", f"{r['ge_rss_mb']:.1f}",
             f"{r['ort_rss_mb']:.1f}", f"{r['rss_ratio']:.2f}", "same" if r["same_tokens"] else "DIFFER", agree(r))
    print("".join(f"{c:>{w}}" for c, w in zip(cells, widths)))
print("ms: median per decode step; 1st: the prefill (ge builds its kernels then); MB: peak RSS above the process "
      "baseline; tokens: ge's and ORT's greedy tokens agree; PyTorch: both agree with PyTorch's")
PY
