# Run by ctest (through a file that trackgen_discover_tests generates, see
# TrackGenTestDiscovery.cmake): lists the Catch2 cases of an executable and adds
# one ctest test per case. Inputs: TRACKGEN_DISCOVER_EXECUTABLE, _PREFIX, _SPEC
# (a Catch test spec, may be empty), _ENVIRONMENT (one VAR=value for every test),
# _STUBS (a folder holding the CUDA stub driver as libcuda.so.1, or empty).

function(_trackgen_list_cases out_var)
  set(_cmd "${TRACKGEN_DISCOVER_EXECUTABLE}")
  if(TRACKGEN_DISCOVER_SPEC)
    list(APPEND _cmd "${TRACKGEN_DISCOVER_SPEC}")
  endif()
  list(APPEND _cmd --list-test-names-only)
  execute_process(COMMAND ${_cmd} OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  if(_out STREQUAL "" AND TRACKGEN_DISCOVER_STUBS AND EXISTS "${TRACKGEN_DISCOVER_STUBS}/libcuda.so.1")
    # No GPU driver here: the stub driver lets the executable load to list its
    # cases (ctest's own environment is restored afterwards: tests never see it).
    set(_saved "$ENV{LD_LIBRARY_PATH}")
    set(ENV{LD_LIBRARY_PATH} "${TRACKGEN_DISCOVER_STUBS}:${_saved}")
    execute_process(COMMAND ${_cmd} OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
    set(ENV{LD_LIBRARY_PATH} "${_saved}")
  endif()
  if(_out STREQUAL "")
    message(WARNING "trackgen: could not list the test cases of ${TRACKGEN_DISCOVER_EXECUTABLE}: ${_err}")
  endif()
  set(${out_var} "${_out}" PARENT_SCOPE)
endfunction()

if(EXISTS "${TRACKGEN_DISCOVER_EXECUTABLE}")
  _trackgen_list_cases(_tg_cases)
  get_filename_component(_tg_dir "${TRACKGEN_DISCOVER_EXECUTABLE}" DIRECTORY)
  string(REPLACE ";" "\\;" _tg_cases "${_tg_cases}")
  string(REPLACE "\n" ";" _tg_cases "${_tg_cases}")
  foreach(_tg_case IN LISTS _tg_cases)
    if(_tg_case STREQUAL "")
      continue()
    endif()
    # A case name is also a Catch test spec: escape the characters the spec parser reads.
    set(_tg_spec "${_tg_case}")
    foreach(_tg_char , [ ])
      string(REPLACE "${_tg_char}" "\\${_tg_char}" _tg_spec "${_tg_spec}")
    endforeach()
    set(_tg_name "${TRACKGEN_DISCOVER_PREFIX}${_tg_case}")
    add_test("${_tg_name}" "${TRACKGEN_DISCOVER_EXECUTABLE}" "${_tg_spec}")
    set_tests_properties("${_tg_name}" PROPERTIES WORKING_DIRECTORY "${_tg_dir}"
                                                  ENVIRONMENT "${TRACKGEN_DISCOVER_ENVIRONMENT}")
  endforeach()
endif()
