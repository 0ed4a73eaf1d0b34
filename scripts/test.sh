#!/usr/bin/env bash
# Builds what changed (installing missing packages first) and runs every test.
# ctest ends with "N% tests passed, M tests failed out of T".
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/build.sh
ctest --preset default
