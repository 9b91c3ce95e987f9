# trackgen_discover_tests(TARGET PREFIX <prefix> [SPEC <catch test spec>] [ENVIRONMENT <VAR=value>])
#
# Registers the Catch2 test cases of TARGET with ctest at test time: every time
# ctest reads this directory it runs the executable with --list-test-names-only
# and adds one test per case, named <prefix><case>. Nothing runs the executable
# at build time, so a CUDA build links on a machine without a GPU driver, and the
# build folder lists and runs its cases on a GPU machine.
#
# Listing needs the executable to load, not a device: where libcuda.so.1 cannot
# be found (no driver installed), the listing is retried with the CUDA toolkit's
# stub driver library on the library path (a link kept in the build folder),
# so `ctest -N` lists the CUDA cases on the build machine too.
#
# The generated files refer to the executable and to the listing script by
# paths relative to themselves (the rest of a ctest folder uses absolute paths).
set(_tg_discovery_script ${CMAKE_CURRENT_LIST_DIR}/discover-catch-tests.cmake)

function(trackgen_discover_tests target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "PREFIX;SPEC;ENVIRONMENT" "")
  get_target_property(_out_dir ${target} RUNTIME_OUTPUT_DIRECTORY)
  if(_out_dir)
    message(FATAL_ERROR "trackgen_discover_tests: ${target} must be built in its own binary folder "
                        "(RUNTIME_OUTPUT_DIRECTORY is ${_out_dir})")
  endif()
  set(_stubs "")
  if(CUDAToolkit_LIBRARY_DIR AND EXISTS "${CUDAToolkit_LIBRARY_DIR}/stubs/libcuda.so")
    set(_stubs "${CMAKE_CURRENT_BINARY_DIR}/cuda-stubs")
    file(MAKE_DIRECTORY ${_stubs})
    file(CREATE_LINK "${CUDAToolkit_LIBRARY_DIR}/stubs/libcuda.so" "${_stubs}/libcuda.so.1" SYMBOLIC)
  endif()
  configure_file(${_tg_discovery_script} ${CMAKE_CURRENT_BINARY_DIR}/discover-catch-tests.cmake COPYONLY)
  string(MAKE_C_IDENTIFIER "${arg_PREFIX}" _id)
  set(_include ${CMAKE_CURRENT_BINARY_DIR}/${target}-${_id}tests.cmake)
  file(GENERATE OUTPUT ${_include} CONTENT
"set(TRACKGEN_DISCOVER_EXECUTABLE \"\${CMAKE_CURRENT_LIST_DIR}/$<TARGET_FILE_NAME:${target}>\")
set(TRACKGEN_DISCOVER_PREFIX [==[${arg_PREFIX}]==])
set(TRACKGEN_DISCOVER_SPEC [==[${arg_SPEC}]==])
set(TRACKGEN_DISCOVER_ENVIRONMENT [==[${arg_ENVIRONMENT}]==])
set(TRACKGEN_DISCOVER_STUBS [==[${_stubs}]==])
include(\"\${CMAKE_CURRENT_LIST_DIR}/discover-catch-tests.cmake\")
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${_include})
endfunction()
