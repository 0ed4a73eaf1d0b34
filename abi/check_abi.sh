#!/bin/bash
# The abi.ge_c test: compares a built libge_c.so with the baseline
# abi/ge_c.abi (docs/c-abi.md). Added functions pass; any other change of
# the exported interface fails until the baseline is deliberately renewed.
# Usage: check_abi.sh ABIDIFF BASELINE LIBRARY HEADERS_DIR
set -u
abidiff=$1 baseline=$2 library=$3 headers=$4

if [[ -z "$abidiff" || ! -x "$abidiff" ]]; then
  echo "abidiff not found: install abigail-tools (scripts/build.sh does)"
  exit 77  # ctest: skipped
fi

# --no-added-syms: added functions are compatible and not reported.
"$abidiff" --exported-interfaces-only --no-added-syms --headers-dir2 "$headers" "$baseline" "$library"
status=$?
# abidiff's exit status is a bit field: 1 error, 2 usage error, 4 an ABI
# change, 8 an incompatible ABI change (a removed function, ...).
if (( status & 3 )); then
  echo "abidiff failed to compare (status $status)"
  exit 1
fi
if (( status & 8 )); then
  echo "INCOMPATIBLE change of the C ABI against $baseline (see above): not allowed without a new major version"
  exit 1
fi
if (( status & 4 )); then
  # abidiff cannot tell an allowed change (a member appended to a versioned
  # struct) from a breaking one (a member inserted or retyped): a person does.
  echo "change of the C ABI against $baseline (see above). If it follows docs/c-abi.md (a member appended"
  echo "to a struct that starts with struct_size), bump GE_C_ABI_MINOR and renew the baseline:"
  echo "  cmake --build <build dir> --target ge_c_abi_baseline"
  exit 1
fi
exit 0
