#!/usr/bin/env bash
# Installs the missing Debian packages ge builds with, then configures and
# builds a CMake preset: `bash scripts/build.sh [PRESET [TARGET...]]`, default
# `default` (build/default) and all its targets; `asan` builds build/asan with
# ASan + UBSan. Safe to run again: it installs only what is missing and rebuilds
# only what changed. Used by scripts/setup.sh (library and CLI only) and
# scripts/test.sh (everything).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Every package the build resolves must be here, not only pulled in as a
# Recommends (we install without them): .ci/run checks it with check-packages.
# ocl-icd-opencl-dev: oneDNN's CMake package asks for OpenCL.
readonly PACKAGES=(
  build-essential cmake ccache pkg-config
  libprotobuf-dev protobuf-compiler libonnx-dev libonnx-testdata
  libflatbuffers-dev flatbuffers-compiler libfmt-dev libdnnl-dev
  catch2 libbenchmark-dev graphviz abigail-tools
  ocl-icd-opencl-dev
  python3 python3-numpy python3-pytest
)
# Only the fuzz preset (scripts/fuzz.sh) builds with clang: clang-16 with its
# sanitizer and libFuzzer runtimes, its OpenMP and llvm-16 for the
# symbolizer of findings' stack traces; llvm and lld because CMake takes their
# archiver and linker for a clang build when they are there (clang 14 has no _Float16
# on x86-64 without AVX512-FP16).
readonly FUZZ_PACKAGES=(clang-16 libclang-rt-16-dev libomp-16-dev llvm-16 llvm lld)

install_missing_packages() {
  local missing=()
  local package
  for package in "$@"; do
    # A removed package whose config files remain is "deinstall ok config-files", not installed.
    [[ $(dpkg-query -W -f='${Status}' "$package" 2>/dev/null) == "install ok installed" ]] || missing+=("$package")
  done
  if ((${#missing[@]} == 0)); then
    return
  fi
  echo "installing: ${missing[*]}"
  local sudo=()
  if ((EUID != 0)); then
    command -v sudo >/dev/null || { echo "error: need root or sudo to install ${missing[*]}" >&2; exit 1; }
    sudo=(sudo)
  fi
  "${sudo[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
}

preset="${1:-default}"
targets=("${@:2}")
if [[ $preset == fuzz ]]; then
  install_missing_packages "${PACKAGES[@]}" "${FUZZ_PACKAGES[@]}"
else
  install_missing_packages "${PACKAGES[@]}"
fi

# The compiler cache survives between runs (and CI jobs that keep $HOME), so
# a rebuild after a small change takes seconds. CMakeLists.txt picks ccache up.
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
# Paths inside the checkout are hashed relative to it, so a fresh clone elsewhere (CI) hits the cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
# Debug info names the build folder; not hashing it lets a clone elsewhere reuse the objects.
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-true}"
# Depend mode: on a miss ccache takes the headers from the compiler's depfile
# instead of running the preprocessor first (4% of a cold build).
export CCACHE_DEPEND="${CCACHE_DEPEND:-true}"
mkdir -p "$CCACHE_DIR"

cmake --preset "$preset" >/dev/null
if ((${#targets[@]} > 0)); then
  cmake --build --preset "$preset" --target "${targets[@]}"
else
  cmake --build --preset "$preset"
fi
