#!/usr/bin/env bash
# Compile-only check of every library translation unit against modern Kokkos:
# the headers of Debian's libkokkos-dev binary package (unstable suite, an OpenMP
# build of Kokkos 5), fetched through apt with private state and unpacked with
# dpkg -x into the TrackGen cache. Its runtime needs a newer glibc, so nothing is
# linked: `g++ -std=c++20 -fopenmp -fsyntax-only` only. The optional layers io/
# (HDF5) and mpi/ are checked when BUILD_DIR builds them, with the include
# directories of their libraries taken from its compile_commands.json.
#
#   cmake/check-kokkos5.sh BUILD_DIR    (BUILD_DIR: a configured build, for version.hpp)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:?usage: cmake/check-kokkos5.sh BUILD_DIR}
source "$here/cmake/apt-private.sh"

cache_root=${TRACKGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/trackgen}
hdrs="$cache_root/libkokkos-dev-unstable"
fetch_libkokkos_dev "$hdrs"
echo "[kokkos5] libkokkos-dev $(cat "$hdrs/VERSION")" >&2

incs=(-isystem "$hdrs/usr/include/kokkos" -I"$build/generated" -I"$here/include")
layers=(core exec generators pipeline metrics runtime)
for layer in "${layers[@]}"; do incs+=(-I"$here/$layer/include"); done
# The optional layers the build compiles (a compile command writes into
# LAYER/CMakeFiles/), and the system include directories of their commands but
# Kokkos's (the one that holds Kokkos_Core.hpp).
commands="$build/compile_commands.json"
for layer in io mpi; do
  [ -f "$commands" ] && grep -qF -- " -o $layer/CMakeFiles/" "$commands" || continue
  layers+=("$layer")
  incs+=(-I"$here/$layer/include")
  while read -r dir; do
    [ -e "$dir/Kokkos_Core.hpp" ] || incs+=(-isystem "$dir")
  done < <(grep -F -- " -o $layer/CMakeFiles/" "$commands" | grep -oE -- '-isystem [^ "]+' | cut -d' ' -f2 | sort -u)
done
echo "[kokkos5] layers: ${layers[*]}" >&2
fail=0 n=0
for f in $(for layer in "${layers[@]}"; do echo "$here/$layer"/src/*.cpp; done); do
  [ -e "$f" ] || continue
  n=$((n + 1))
  if ! g++ -std=c++20 -fopenmp -fsyntax-only -Wall -Wextra "${incs[@]}" "$f"; then
    echo "[kokkos5] FAILED: ${f#$here/}" >&2
    fail=1
  fi
done
echo "[kokkos5] $n translation units checked against Kokkos $(cat "$hdrs/VERSION")" >&2
exit $fail
