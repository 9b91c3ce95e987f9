#!/usr/bin/env bash
# Compile check of TrackGen's Kokkos::Cuda code paths (the CUDA graph execution
# layer, every library translation unit, the exec tests) with nvcc. Too slow for
# CI (see below); run it by hand after touching exec/ or Kokkos-facing code.
#
#   cmake/check-kokkos-cuda.sh [OUT_DIR]        (default: build/kcuda)
#
# Two modes:
#  - Kokkos_ROOT set to a CUDA-enabled Kokkos (>= 4.7; CUDA 13 needs it): the
#    project is configured with the `cuda` preset into OUT_DIR and its libraries
#    and trackgen_tests are built (Kokkos' compiler wrapper compiles them).
#  - otherwise (this machine): no Kokkos CUDA build can be made here. This
#    machine's Debian archive serves neither the `kokkos` 5.2.2 source package nor
#    a trilinos source with Kokkos >= 4.7 (apt-get source gets 404 for their
#    tarballs), and Kokkos 3.4.01 (trilinos 13.2) does not compile with CUDA 13.
#    Debian's libkokkos-dev 5.2.2 binary package (an OpenMP build) does ship every
#    backend's headers, so its headers are copied into
#      ${TRACKGEN_CACHE_DIR:-~/.cache/trackgen}/kokkos-5.2.2-cuda-headers
#    with the configuration a `-DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_SERIAL=ON
#    -DKokkos_ARCH_HOPPER90=ON` build generates (KokkosCore_config.h, the backend
#    declaration lists, desul's CUDA switch), and every translation unit is
#    compiled to an object with nvcc (`-x cu -std=c++20 -arch=sm_90
#    --extended-lambda`, host and device code) with the CUDA executor enabled
#    (TRACKGEN_HAS_CUDA_EXECUTOR=1). Nothing is linked: there is no libkokkoscore
#    for CUDA. Then cmake/check-cuda.sh builds the executor library itself.
#
# Cost on this 2-core machine (nice -n 10, 2 jobs): about 25-30 s per translation
# unit, some 20 minutes for the whole check.
#
# nvcc: CUDACXX, else PATH, else /usr/local/cuda/bin/nvcc. Exit status: 0 when
# every translation unit compiled.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$here/build/kcuda}
jobs=${TRACKGEN_CHECK_JOBS:-2}
t0=$(date +%s)

if [ -n "${Kokkos_ROOT:-}" ]; then
  echo "[kokkos-cuda] configuring with the cuda preset against Kokkos_ROOT=$Kokkos_ROOT" >&2
  cmake --preset cuda -B "$out" -DTRACKGEN_ENABLE_EXAMPLES=OFF -DTRACKGEN_ENABLE_PERF=OFF
  nice -n 10 cmake --build "$out" -j "$jobs" --target trackgen_pipeline trackgen_metrics trackgen_tests
  echo "[kokkos-cuda] built in $(( $(date +%s) - t0 )) s" >&2
  exit 0
fi

nvcc=${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$nvcc" ] || { echo "[kokkos-cuda] nvcc not found" >&2; exit 1; }
echo "[kokkos-cuda] $("$nvcc" --version | grep -i release)" >&2

source "$here/cmake/apt-private.sh"
cache_root=${TRACKGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/trackgen}
fetch_libkokkos_dev "$cache_root/libkokkos-dev-unstable"
hdrs="$cache_root/kokkos-5.2.2-cuda-headers"
if [ ! -f "$hdrs/.complete" ]; then
  src="$cache_root/libkokkos-dev-unstable/usr/include/kokkos"
  rm -rf "$hdrs"; mkdir -p "$hdrs"
  cp -r "$src/." "$hdrs/"
  # What Kokkos' CMake writes for the CUDA + Serial build on Hopper.
  sed -i -e 's|^/\* #undef KOKKOS_ENABLE_SERIAL \*/|#define KOKKOS_ENABLE_SERIAL|' \
         -e 's|^#define KOKKOS_ENABLE_OPENMP$|/* #undef KOKKOS_ENABLE_OPENMP */|' \
         -e 's|^/\* #undef KOKKOS_ENABLE_CUDA \*/|#define KOKKOS_ENABLE_CUDA|' \
         -e 's|^/\* #undef KOKKOS_ARCH_HOPPER \*/|#define KOKKOS_ARCH_HOPPER|' \
         -e 's|^/\* #undef KOKKOS_ARCH_HOPPER90 \*/|#define KOKKOS_ARCH_HOPPER90|' "$hdrs/KokkosCore_config.h"
  sed -i 's|^/\* #undef DESUL_ATOMICS_ENABLE_CUDA \*/|#define DESUL_ATOMICS_ENABLE_CUDA|' "$hdrs/desul/atomics/Config.hpp"
  sed -i 's|#include <decl/Kokkos_Declare_OPENMP.hpp>|#include <decl/Kokkos_Declare_SERIAL.hpp>\n#include <decl/Kokkos_Declare_CUDA.hpp>|' \
    "$hdrs/KokkosCore_Config_DeclareBackend.hpp"
  sed -i 's|#include <fwd/Kokkos_Fwd_OPENMP.hpp>|#include <fwd/Kokkos_Fwd_SERIAL.hpp>\n#include <fwd/Kokkos_Fwd_CUDA.hpp>|' \
    "$hdrs/KokkosCore_Config_FwdBackend.hpp"
  sed -i 's|^#define KOKKOS_SETUP_HPP_$|#define KOKKOS_SETUP_HPP_\n#include <setup/Kokkos_Setup_Cuda.hpp>|' \
    "$hdrs/KokkosCore_Config_SetupBackend.hpp"
  for want in '#define KOKKOS_ENABLE_CUDA' '#define KOKKOS_ENABLE_SERIAL' '#define KOKKOS_ARCH_HOPPER90'; do
    grep -qx "$want" "$hdrs/KokkosCore_config.h" || { echo "[kokkos-cuda] could not set '$want'" >&2; exit 1; }
  done
  touch "$hdrs/.complete"
fi
echo "[kokkos-cuda] Kokkos $(cat "$cache_root/libkokkos-dev-unstable/VERSION") headers configured for CUDA (sm_90) + Serial" >&2

mkdir -p "$out/generated/trackgen" "$out/obj"
out=$(cd "$out" && pwd)
sed -e 's/@PROJECT_VERSION_MAJOR@/0/; s/@PROJECT_VERSION_MINOR@/0/; s/@PROJECT_VERSION_PATCH@/0/' \
    -e 's/@PROJECT_VERSION@/0.0.0/; s/@TRACKGEN_GIT_REVISION@/kokkos-cuda-check/' \
    "$here/cmake/version.hpp.in" > "$out/generated/trackgen/version.hpp"

flags=(-x cu -std=c++20 -arch=sm_90 --extended-lambda -Wext-lambda-captures-this
       -Xcompiler=-Wall,-Wextra -DTRACKGEN_HAS_CUDA_EXECUTOR=1
       -isystem "$hdrs" -I"$out/generated" -I"$here/include" -I"$here/exec/cuda/include" -I"$here/tests"
       -I"$here/pipeline/src")  # the tests' include folders (tests/CMakeLists.txt)
for layer in core exec generators pipeline metrics runtime; do flags+=(-I"$here/$layer/include"); done
units=("$here/tests/cuda/test_kokkos_cuda_exec.cpp" "$here/tests/test_exec.cpp"
       "$here/tests/test_track_generator_exec.cpp" "$here"/{core,exec,generators,pipeline,metrics,runtime}/src/*.cpp)

export nvcc out here
printf '%s\n' "${flags[@]}" > "$out/flags"
compile_one() {
  local f=$1 name log
  name=$(echo "${f#$here/}" | tr '/' '_')
  log="$out/obj/$name.log"
  mapfile -t fl < "$out/flags"
  local cc=("$nvcc" "${fl[@]}")
  # The logger is host-only (spdlog's fmt does not compile as CUDA): the CMake
  # build hands it to the host compiler (nvcc_wrapper --host-only); so does this.
  if [ "${f##*/}" = logging.cpp ]; then
    cc=(g++ -std=c++20 -Wall -Wextra)
    for a in "${fl[@]}"; do case $a in -I*|-isystem|/*) cc+=("$a") ;; esac; done
  fi
  if nice -n 10 "${cc[@]}" -c "$f" -o "$out/obj/$name.o" >"$log" 2>&1; then
    echo "[kokkos-cuda] ok     ${f#$here/}" >&2
  else
    echo "[kokkos-cuda] FAILED ${f#$here/} (log: $log)" >&2
    head -n 40 "$log" >&2
    return 1
  fi
}
export -f compile_one
fail=0
printf '%s\n' "${units[@]}" | xargs -P "$jobs" -I{} bash -c 'compile_one "$@"' _ {} || fail=1

bash "$here/cmake/check-cuda.sh" "$out/cuda-executor" || fail=1
echo "[kokkos-cuda] ${#units[@]} translation units compiled with nvcc in $(( $(date +%s) - t0 )) s" \
     "($([ $fail = 0 ] && echo all ok || echo FAILURES))" >&2
exit $fail
