#!/usr/bin/env bash
# One command from a fresh Debian 12 checkout to a running model: installs the
# missing packages, builds only what the demo needs (libge and the `ge` tool, in
# build/default, optimized) and runs the demo CNN with `ge run`. The tests and
# benchmarks are built by scripts/test.sh, which reuses everything built here.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

start=$SECONDS
echo "== building libge and the ge tool (build/default; about 8 min on 2 cores the first time, seconds after)"
bash scripts/build.sh default ge_cli
echo "== built in $((SECONDS - start)) s"
echo
echo "+ build/default/tools/ge run models/demo_cnn.onnx"
build/default/tools/ge run models/demo_cnn.onnx
