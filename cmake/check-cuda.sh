#!/usr/bin/env bash
# Compile-and-link check of the CUDA graph executor (exec/cuda, plain CUDA runtime
# code, no Kokkos) and its tests with nvcc, warnings as errors, as a standalone
# CMake project; then runs the test binary, which skips its device cases (exit 0)
# on a machine without a GPU. Without nvcc it prints a note and exits 0.
#
#   cmake/check-cuda.sh [BUILD_DIR]       (default: build/cuda-check)
#
# nvcc is taken from CUDACXX, else PATH, else CUDA_HOME / CUDA_PATH, else
# /usr/local/cuda/bin/nvcc. CUDA architectures: TRACKGEN_CUDA_ARCHITECTURES
# (default "80;90").
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$here/build/cuda-check}

nvcc=${CUDACXX:-}
if [ -z "$nvcc" ]; then
  if command -v nvcc >/dev/null 2>&1; then
    nvcc=$(command -v nvcc)
  else
    for root in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda; do
      if [ -n "$root" ] && [ -x "$root/bin/nvcc" ]; then nvcc=$root/bin/nvcc; break; fi
    done
  fi
fi
if [ -z "$nvcc" ] || [ ! -x "$nvcc" ]; then
  echo "[cuda] note: nvcc not found; the CUDA executor check is skipped" >&2
  exit 0
fi
echo "[cuda] $("$nvcc" --version | grep -i release)" >&2

generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
if [ -f "$build/CMakeCache.txt" ] && ! grep -q "^CMAKE_HOME_DIRECTORY:INTERNAL=$here/exec/cuda\$" "$build/CMakeCache.txt"; then
  echo "[cuda] $build holds another project; use another BUILD_DIR" >&2
  exit 1
fi

cmake -S "$here/exec/cuda" -B "$build" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_COMPILER="$nvcc" \
  -DCMAKE_CUDA_ARCHITECTURES="${TRACKGEN_CUDA_ARCHITECTURES:-80;90}" \
  -DCMAKE_CUDA_FLAGS="-Werror=all-warnings -Xcompiler=-Wall,-Wextra,-Werror" \
  -DTRACKGEN_ENABLE_TESTS=ON >/dev/null
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)"
echo "[cuda] built trackgen_cuda_exec and trackgen_cuda_tests" >&2
"$build/trackgen_cuda_tests"
