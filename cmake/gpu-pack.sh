#!/usr/bin/env bash
# Packs what cmake/gpu-check.sh runs from a CUDA build folder into one folder to
# take to a GPU machine: stripped executables (no object files), the shared
# libraries they load from outside the system (the CUDA runtime; never the GPU
# driver, which the GPU machine provides), the data file the tests read, and the
# check script itself. Prints the pack's size; fails above 64 MiB.
#
#   cmake/gpu-pack.sh BUILD_DIR OUT_DIR
#
# Then, on the GPU machine:  OUT_DIR/gpu-check.sh OUT_DIR [REPORT]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -eq 2 ] || { echo "usage: $0 BUILD_DIR OUT_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd)
out=$2
limit_mib=64

exes=(tests/trackgen_tests exec/cuda/trackgen_cuda_tests perf/perf_exec apps/trackgen)
for e in "${exes[@]}"; do
  [ -x "$build/$e" ] || { echo "gpu-pack: $build/$e is missing; build the cuda preset first" >&2; exit 1; }
done
if ! ldd "$build/tests/trackgen_tests" | grep -q 'libcudart'; then
  echo "gpu-pack: $build is not a CUDA build (its tests do not load the CUDA runtime)" >&2
  exit 1
fi

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/docs"
for e in "${exes[@]}"; do
  cp "$build/$e" "$out/bin/"
  strip --strip-unneeded "$out/bin/$(basename "$e")"
done

# Shared libraries resolved outside the system folders (e.g. libcudart from the
# CUDA toolkit, Kokkos when built shared), except the driver (libcuda).
for e in "$out"/bin/*; do
  ldd "$e" | awk '$2 == "=>" && $3 ~ /^\// {print $3}'
done | sort -u | while read -r lib; do
  case "$lib" in
    /lib/* | /usr/lib/* | */libcuda.so*) ;;
    *) cp -L "$lib" "$out/lib/" ;;
  esac
done

cp "$here/docs/quality-table.json" "$out/docs/"
cp "$here/cmake/gpu-check.sh" "$out/"
{
  echo "trackgen revision: $(git -C "$here" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
  echo "packed: $(date -u +%Y-%m-%dT%H:%M:%SZ) from $build"
  grep -E '^(Kokkos_DIR|CMAKE_CXX_COMPILER|CMAKE_BUILD_TYPE):' "$build/CMakeCache.txt" || true
} > "$out/MANIFEST"

size_kib=$(du -sk "$out" | cut -f1)
echo "gpu-pack: $out holds $(( (size_kib + 1023) / 1024 )) MiB:"
(cd "$out" && find . -type f -printf '  %8s  %p\n' | sort -k2)
if [ "$size_kib" -gt $(( limit_mib * 1024 )) ]; then
  echo "gpu-pack: the pack exceeds $limit_mib MiB" >&2
  exit 1
fi
