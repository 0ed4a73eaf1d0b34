#!/usr/bin/env bash
# The sample output of `ge run models/demo_cnn.onnx` in README.md has the shape
# of what the tool prints today: the same lines and words, with every number
# (timings, sizes, values) and run of spaces left out of the comparison.
# usage: readme_cli_output.sh REPO_ROOT GE_BINARY
set -euo pipefail
readonly repo=$1 ge=$2
cd "$repo"

# The README block's lines after its "$ build/default/tools/ge run ..." line.
documented=$(awk '/^\$ build\/default\/tools\/ge run models\/demo_cnn.onnx$/ {inside = 1; next}
                  inside && /^```/ {exit} inside' README.md)
[[ -n $documented ]] || { echo "README.md has no sample output of 'ge run models/demo_cnn.onnx'"; exit 1; }
actual=$("$ge" run models/demo_cnn.onnx)

shape() { sed -E 's/-?[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?/N/g; s/[[:space:]]+/ /g; s/ $//'; }
if ! diff <(shape <<<"$documented") <(shape <<<"$actual"); then
  echo "README.md's sample output (<) no longer matches 'ge run models/demo_cnn.onnx' (>); today it prints:"
  echo "$actual"
  exit 1
fi
echo "README.md's sample output has the shape of today's 'ge run' ($(wc -l <<<"$actual") lines)"
