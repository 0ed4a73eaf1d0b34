#!/usr/bin/env bash
# One command from a fresh Debian 12 checkout to a running model: installs the
# missing packages, builds (build/default) and runs the demo CNN with `ge run`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/build.sh
echo
echo "+ build/default/tools/ge run models/demo_cnn.onnx"
build/default/tools/ge run models/demo_cnn.onnx
