#!/usr/bin/env bash
# Every function that include/ge_c/*.h exports is named in docs/c-abi.md.
# usage: c_abi_table.sh REPO_ROOT
set -euo pipefail
cd "$1"
functions=$(grep -ohE 'GE_C_EXPORT [^(]*\bge_[a-z0-9_]+\(' include/ge_c/*.h | grep -oE 'ge_[a-z0-9_]+\($' | tr -d '(')
missing=()
for function in $functions; do
  grep -qw "$function" docs/c-abi.md || missing+=("$function")
done
if ((${#missing[@]} > 0)); then
  echo "docs/c-abi.md does not name: ${missing[*]}"
  exit 1
fi
echo "docs/c-abi.md names all $(wc -w <<<"$functions") exported functions"
