# ctest check of one trackgen command line: runs it in a fresh folder and checks
# its exit code, its output and the files it leaves.
#   cmake -DTRACKGEN=<exe> -DWORKDIR=<dir> -DRC=<exit code> -DCMD=<sh command line>
#         [-DEXPECT=<regex>] [-DFORBID=<regex>] [-DSETUP=<sh command line>]
#         [-DPRESENT=<files>] [-DABSENT=<files>] -P check-cli.cmake
# CMD and SETUP run under `sh -c` in WORKDIR with $TRACKGEN set (and
# OMP_PROC_BIND=false); EXPECT must match and FORBID must not match stdout and
# stderr together; PRESENT / ABSENT are comma lists of paths relative to
# WORKDIR. No temporary of an output (.*.tmp) may be left in WORKDIR or below.
file(REMOVE_RECURSE "${WORKDIR}")
file(MAKE_DIRECTORY "${WORKDIR}")
set(env ${CMAKE_COMMAND} -E env TRACKGEN=${TRACKGEN} OMP_PROC_BIND=false)
if(DEFINED SETUP)
  execute_process(COMMAND ${env} sh -c "${SETUP}" WORKING_DIRECTORY "${WORKDIR}" RESULT_VARIABLE setup_rc)
  if(NOT setup_rc EQUAL 0)
    message(FATAL_ERROR "setup failed (${setup_rc}): ${SETUP}")
  endif()
endif()
execute_process(COMMAND ${env} sh -c "${CMD}" WORKING_DIRECTORY "${WORKDIR}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
if(NOT rc STREQUAL RC)
  message(FATAL_ERROR "exit code ${rc}, expected ${RC}: ${CMD}\n${all}")
endif()
if(DEFINED EXPECT AND NOT all MATCHES "${EXPECT}")
  message(FATAL_ERROR "output does not match '${EXPECT}': ${CMD}\n${all}")
endif()
if(DEFINED FORBID AND all MATCHES "${FORBID}")
  message(FATAL_ERROR "output matches '${FORBID}': ${CMD}\n${all}")
endif()
string(REPLACE "," ";" present "${PRESENT}")
foreach(f IN LISTS present)
  if(NOT EXISTS "${WORKDIR}/${f}")
    message(FATAL_ERROR "${f} is missing after: ${CMD}\n${all}")
  endif()
endforeach()
string(REPLACE "," ";" absent "${ABSENT}")
foreach(f IN LISTS absent)
  if(EXISTS "${WORKDIR}/${f}")
    message(FATAL_ERROR "${f} exists after: ${CMD}\n${all}")
  endif()
endforeach()
file(GLOB_RECURSE temps LIST_DIRECTORIES false "${WORKDIR}/*.tmp")
if(temps)
  message(FATAL_ERROR "temporaries left after: ${CMD}: ${temps}")
endif()
message(STATUS "ok (exit ${rc}): ${CMD}")
