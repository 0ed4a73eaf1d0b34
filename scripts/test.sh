#!/usr/bin/env bash
# Builds what changed (installing missing packages first) and runs every test,
# first in the default build, then under AddressSanitizer + UndefinedBehaviorSanitizer
# (bad input must give an error, never a crash or a leak), then the Ascend
# backend against the ACL emulator, also under the sanitizers (docs/ascend.md).
# The default build's tests run three times: on every instruction set this CPU
# has, then with oneDNN and ge's own kernels capped to AVX2 and to SSE4.1
# (GE_MAX_CPU_ISA, docs/cpu-kernels.md), the CPUs most users have.
# The sanitizer presets run with ASAN_OPTIONS=allocator_may_return_null=1:
# an impossible allocation then fails as it does with libc, so the tests see
# ge's named error for it rather than ASan's abort.
# ctest ends each run with "N% tests passed, M tests failed out of T".
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/build.sh default
# Trained TensorFlow.js models and their TensorFlow.js outputs, into a cache
# (tests/tf skips them, saying so, when this cannot fetch them), bounded:
# without a network npm may retry for long.
timeout 600 bash scripts/fetch_tf_models.sh || echo "test.sh: TensorFlow.js models not fetched; tests/tf will skip them"
ctest --preset default
ctest --preset avx2
ctest --preset sse41

bash scripts/build.sh asan
ctest --preset asan

bash scripts/build.sh acl
ctest --preset acl
