#!/usr/bin/env bash
# TrackGen bootstrap: installs what the build needs, provides Kokkos, builds, and
# runs the main job or the tests.
#
#   cmake/bootstrap.sh demo  [--preset P]   set up, build the CLI, run `trackgen generate`
#   cmake/bootstrap.sh test  [--preset P]   set up, build, run ctest
#   cmake/bootstrap.sh deps  [--preset P]   set up only; prints the Kokkos root
#
# Kokkos: if Kokkos_ROOT is set it is used as it is and never modified. Otherwise
# Kokkos 3.4.01 and Kokkos Kernels 3.4.01 are taken from Debian's `trilinos` source
# package through apt itself (deb-src entries derived from this machine's own apt
# sources, private apt state, apt verifies the hashes), built with C++20 and the
# backends of the preset, and installed into
#   ${TRACKGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/trackgen}/<key>
# keyed by versions, backends and compiler, so later runs reuse it in seconds.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
action=${1:-deps}; shift || true
preset=openmp
while [ $# -gt 0 ]; do
  case "$1" in
    --preset) preset=$2; shift 2 ;;
    *) echo "bootstrap: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
case "$action" in demo|test|deps) ;; *) echo "bootstrap: unknown action '$action' (demo|test|deps)" >&2; exit 2 ;; esac

log() { printf '[bootstrap] %s\n' "$*" >&2; }
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"

# ---- 1. build packages --------------------------------------------------------
pkgs="g++ make cmake ninja-build git ca-certificates catch2 libspdlog-dev libfmt-dev nlohmann-json3-dev libcli11-dev libbenchmark-dev"
pkgs="$pkgs libboost-dev"  # trackgen serve: the HTTP server (Boost.Beast and Boost.Asio, header-only)
pkgs="$pkgs libhdf5-dev hdf5-tools"  # optional io/ layer (--format hdf5) and h5dump for its tests
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  log "installing:$missing"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# ---- 2. Kokkos ----------------------------------------------------------------
case "$preset" in
  serial) backends="Serial" ;;
  cuda)   backends="" ;;
  *)      backends="Serial;OpenMP" ;;
esac

source "$here/cmake/apt-private.sh"

cache_root=${TRACKGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/trackgen}
if [ -n "${Kokkos_ROOT:-}" ]; then
  log "using the Kokkos given by Kokkos_ROOT=$Kokkos_ROOT (not modified)"
elif [ "$preset" = cuda ]; then
  echo "bootstrap: the cuda preset needs a CUDA-enabled Kokkos >= 4.7: set Kokkos_ROOT" >&2; exit 1
else
  cxx_id=$(c++ -dumpfullversion 2>/dev/null || echo unknown)
  key="kokkos-3.4.01-kk-3.4.01-$(echo "$backends" | tr 'A-Z;' 'a-z-')-cxx20-gcc$cxx_id"
  prefix="$cache_root/$key"
  if [ -f "$prefix/.complete" ]; then
    log "reusing cached Kokkos at $prefix"
  else
    t0=$(date +%s)
    work=$(mktemp -d "${TMPDIR:-/tmp}/trackgen-kokkos.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    log "fetching Debian's trilinos source package through apt (private state in $work)"
    apt_private "$work/apt" deb-src bookworm update -qq >/dev/null
    (cd "$work" && apt_private "$work/apt" deb-src bookworm source --download-only --tar-only trilinos >/dev/null 2>&1)
    tarball=$(ls "$work"/trilinos_*.orig.tar.* | head -n 1)
    log "extracting Kokkos and Kokkos Kernels from $(basename "$tarball")"
    tar -xf "$tarball" -C "$work" --wildcards '*/packages/kokkos/*' '*/packages/kokkos-kernels/*'
    src=$(ls -d "$work"/*/packages | head -n 1)
    rm -rf "$prefix"; mkdir -p "$prefix"
    flags=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=20 -DCMAKE_CXX_EXTENSIONS=OFF
           -DCMAKE_INSTALL_PREFIX="$prefix" -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON)
    kflags=(-DKokkos_ENABLE_SERIAL=ON)
    case "$backends" in *OpenMP*) kflags+=(-DKokkos_ENABLE_OPENMP=ON) ;; esac
    log "building Kokkos 3.4.01 ($backends)"
    cmake -S "$src/kokkos" -B "$work/build-kokkos" "${flags[@]}" "${kflags[@]}" -DKokkos_ENABLE_TESTS=OFF >"$work/kokkos.log" 2>&1 \
      || { tail -n 40 "$work/kokkos.log" >&2; exit 1; }
    cmake --build "$work/build-kokkos" -j "$(nproc)" >>"$work/kokkos.log" 2>&1 && cmake --install "$work/build-kokkos" >>"$work/kokkos.log" 2>&1 \
      || { tail -n 40 "$work/kokkos.log" >&2; exit 1; }
    log "building Kokkos Kernels 3.4.01 (no default ETI)"
    cmake -S "$src/kokkos-kernels" -B "$work/build-kk" "${flags[@]}" -DKokkos_ROOT="$prefix" \
      -DKokkosKernels_ADD_DEFAULT_ETI=OFF -DKokkosKernels_ENABLE_TESTS=OFF >"$work/kk.log" 2>&1 \
      || { tail -n 40 "$work/kk.log" >&2; exit 1; }
    cmake --build "$work/build-kk" -j "$(nproc)" >>"$work/kk.log" 2>&1 && cmake --install "$work/build-kk" >>"$work/kk.log" 2>&1 \
      || { tail -n 40 "$work/kk.log" >&2; exit 1; }
    touch "$prefix/.complete"
    log "Kokkos installed in $prefix in $(( $(date +%s) - t0 )) s"
  fi
  export Kokkos_ROOT="$prefix" KokkosKernels_ROOT="$prefix"
fi

if [ "$action" = deps ]; then
  echo "${Kokkos_ROOT:-}"
  exit 0
fi

# ---- 3. build and run ---------------------------------------------------------
cd "$here"
# TRACKGEN_WERROR=1 (CI) builds our code with -Wall -Wextra -Werror; Kokkos'
# headers are system includes, so only TrackGen's own code is held to it.
werror=()
[ "${TRACKGEN_WERROR:-0}" = 1 ] && werror=(-DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror")
cmake --preset "$preset" "${werror[@]}" >/dev/null
# demo builds only the command-line tool it runs (not the tests, benchmarks, examples).
targets=()
[ "$action" = demo ] && targets=(--target trackgen_app)
cmake --build --preset "$preset" -j "$(nproc)" "${targets[@]}"
builddir="$here/build/$preset"
if [ "$action" = demo ]; then
  "$builddir/apps/trackgen" generate --out "$here/out"
else
  OMP_PROC_BIND=false ctest --preset "$preset"
fi
