#!/usr/bin/env bash
# Checks the Ascend backend against a CANN toolkit's ACL headers without an NPU:
# every lib/device/acl/*.cc must compile against them, and every ACL constant
# the backend uses must have the same value in them as in the emulator's
# headers (lib/device/acl/emulator/include).
#
# usage: scripts/check_acl_headers.sh CANN_INCLUDE_DIR   (the folder holding acl/acl.h)
set -euo pipefail
if [[ $# -ne 1 || ! -f $1/acl/acl.h ]]; then
  sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
readonly cann=$1
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly repo
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

[[ -d $repo/build/default/lib/generated ]] || { echo "check_acl_headers: build the default preset first" >&2; exit 1; }
for source in "$repo"/lib/device/acl/*.cc; do
  g++ -std=c++20 -fsyntax-only -I"$cann" -I"$repo/include" -I"$repo/lib" -I"$repo/build/default/lib/generated" \
    "$source" || { echo "check_acl_headers: $(basename "$source") does not compile against $cann" >&2; exit 1; }
done
g++ -std=c++20 -I"$cann" "$repo/scripts/acl_header_values.cc" -o "$work/toolkit"
g++ -std=c++20 -I"$repo/lib/device/acl/emulator/include" "$repo/scripts/acl_header_values.cc" -o "$work/emulator"
if ! diff <("$work/toolkit") <("$work/emulator"); then
  echo "check_acl_headers: constants differ (< toolkit, > emulator)" >&2
  exit 1
fi
echo "check_acl_headers: lib/device/acl compiles against $cann; $("$work/toolkit" | wc -l) constants agree"
