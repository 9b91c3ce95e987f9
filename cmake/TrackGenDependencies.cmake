# Finds TrackGen's dependencies. Kokkos is always found through an explicit root:
# Debian's libtrilinos-kokkos-dev (Serial only) may be installed system-wide and
# must never be picked up silently.
if(NOT DEFINED Kokkos_ROOT AND NOT DEFINED ENV{Kokkos_ROOT} AND NOT DEFINED Kokkos_DIR)
  message(FATAL_ERROR
    "TrackGen: no Kokkos given. Set Kokkos_ROOT (CMake or environment variable) to a Kokkos "
    "installation, or run `cmake/bootstrap.sh deps`, which builds one and prints its root.")
endif()
find_package(Kokkos 3.4 REQUIRED CONFIG NO_SYSTEM_ENVIRONMENT_PATH NO_CMAKE_SYSTEM_PATH)
message(STATUS "TrackGen: Kokkos ${Kokkos_VERSION} from ${Kokkos_DIR}")
if(TRACKGEN_KOKKOS_DEVICES)
  foreach(dev IN LISTS TRACKGEN_KOKKOS_DEVICES)
    kokkos_check(DEVICES ${dev} RETURN_VALUE _has_dev)
    if(NOT _has_dev)
      message(FATAL_ERROR "TrackGen: the Kokkos at ${Kokkos_DIR} lacks the ${dev} backend that this "
                          "configuration requires (TRACKGEN_KOKKOS_DEVICES=${TRACKGEN_KOKKOS_DEVICES}).")
    endif()
  endforeach()
endif()
# Kokkos' mdspan-based View (the default of its 4.5 to 4.7.0 releases) is
# miscompiled by GCC 12: a default-constructed View gets a zero allocation tracker
# and crashes when it is destroyed (kokkos issue #7464), which every TrackGen
# producer does. Checked by running a two-line program, once per Kokkos and
# compiler (not when cross-compiling, nor with CUDA, whose View avoids the
# construct that triggers it).
kokkos_check(DEVICES Cuda RETURN_VALUE _tg_kokkos_cuda)
if(NOT CMAKE_CROSSCOMPILING AND NOT _tg_kokkos_cuda)
  string(MD5 _tg_view_key "${Kokkos_DIR};${CMAKE_CXX_COMPILER};${CMAKE_CXX_COMPILER_VERSION}")
  if(NOT DEFINED TRACKGEN_KOKKOS_VIEW_OK_${_tg_view_key})
    message(STATUS "TrackGen: checking that a default-constructed Kokkos::View survives its destructor")
    try_run(_tg_view_run _tg_view_compiled ${CMAKE_BINARY_DIR}/kokkos-view-check
            ${PROJECT_SOURCE_DIR}/cmake/kokkos-view-check.cpp
            LINK_LIBRARIES Kokkos::kokkos CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON
            COMPILE_OUTPUT_VARIABLE _tg_view_log)
    if(NOT _tg_view_compiled)
      message(FATAL_ERROR "TrackGen: cmake/kokkos-view-check.cpp does not compile against the Kokkos at "
                          "${Kokkos_DIR}:\n${_tg_view_log}")
    endif()
    if(NOT _tg_view_run EQUAL 0)
      message(FATAL_ERROR
        "TrackGen: the Kokkos ${Kokkos_VERSION} at ${Kokkos_DIR} and this compiler "
        "(${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}) crash when a default-constructed "
        "Kokkos::View is destroyed (the check program: ${_tg_view_run}). That is Kokkos' mdspan-based View "
        "miscompiled by GCC 12 (kokkos issue #7464). Use a Kokkos configured with "
        "-DKokkos_ENABLE_IMPL_VIEW_LEGACY=ON (the default of Kokkos 4.7.1 and later; "
        "`TRACKGEN_KOKKOS_SOURCE=DIR|TARBALL cmake/bootstrap.sh deps` builds one), or another compiler.")
    endif()
    set(TRACKGEN_KOKKOS_VIEW_OK_${_tg_view_key} ON CACHE INTERNAL "")
  endif()
endif()

if(Kokkos_VERSION VERSION_LESS 4.0)
  # Kokkos 3.4 has no sort_team; the team bitonic sort comes from Kokkos Kernels.
  find_package(KokkosKernels REQUIRED CONFIG HINTS ${Kokkos_ROOT} $ENV{Kokkos_ROOT}
               NO_SYSTEM_ENVIRONMENT_PATH NO_CMAKE_SYSTEM_PATH)
  set(TRACKGEN_SORT_DEPS Kokkos::kokkoskernels)
endif()
find_package(spdlog REQUIRED CONFIG)
find_package(nlohmann_json 3.10 REQUIRED CONFIG)
