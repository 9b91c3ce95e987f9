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
if(Kokkos_VERSION VERSION_LESS 4.0)
  # Kokkos 3.4 has no sort_team; the team bitonic sort comes from Kokkos Kernels.
  find_package(KokkosKernels REQUIRED CONFIG HINTS ${Kokkos_ROOT} $ENV{Kokkos_ROOT}
               NO_SYSTEM_ENVIRONMENT_PATH NO_CMAKE_SYSTEM_PATH)
  set(TRACKGEN_SORT_DEPS Kokkos::kokkoskernels)
endif()
find_package(spdlog REQUIRED CONFIG)
find_package(nlohmann_json 3.10 REQUIRED CONFIG)
