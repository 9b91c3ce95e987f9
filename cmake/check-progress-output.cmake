# ctest check of the progress lines (apps/progress.hpp) and of `--format hdf5`:
# progress goes to stderr only, so --json stdout stays one JSON object per line;
# short runs print none; --quiet silences it; TRACKGEN_PROGRESS_DELAY=0 makes
# any run "long".
#   cmake -DTRACKGEN=<exe> -DOUT=<dir> -DHDF5=ON|OFF -P check-progress-output.cmake

# run(<var prefix> args...): runs trackgen with args, fails on a non-zero status.
function(run prefix)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ARGN} failed (${rc}):\n${out}${err}")
  endif()
  set(${prefix}_out "${out}" PARENT_SCOPE)
  set(${prefix}_err "${err}" PARENT_SCOPE)
endfunction()

# Every non-empty line of `text` must be a JSON object.
function(check_json_lines what text)
  string(REPLACE "\n" ";" lines "${text}")
  set(n 0)
  foreach(line IN LISTS lines)
    if(line STREQUAL "")
      continue()
    endif()
    string(JSON type ERROR_VARIABLE jerr TYPE "${line}")
    if(jerr OR NOT type STREQUAL "OBJECT")
      message(FATAL_ERROR "${what}: stdout line is not a JSON object: '${line}' (${jerr})")
    endif()
    math(EXPR n "${n} + 1")
  endforeach()
  if(n EQUAL 0)
    message(FATAL_ERROR "${what}: no JSON on stdout")
  endif()
endfunction()

set(now ${CMAKE_COMMAND} -E env TRACKGEN_PROGRESS_DELAY=0 ${TRACKGEN})

run(m ${now} metrics --json --generator bezier --envs 8)
check_json_lines("metrics --json" "${m_out}")
if(NOT m_err MATCHES "trackgen metrics: 1/1 generators")
  message(FATAL_ERROR "metrics with TRACKGEN_PROGRESS_DELAY=0 printed no progress on stderr:\n${m_err}")
endif()

run(d ${now} drive --json --envs 8 --steps 20)
check_json_lines("drive --json" "${d_out}")
if(NOT d_err MATCHES "trackgen drive: 20/20 steps")
  message(FATAL_ERROR "drive with TRACKGEN_PROGRESS_DELAY=0 printed no progress on stderr:\n${d_err}")
endif()

run(q ${now} metrics --json --generator bezier --envs 8 --quiet)
if(q_err MATCHES "trackgen metrics:")
  message(FATAL_ERROR "metrics --quiet printed progress:\n${q_err}")
endif()

# A run shorter than the delay prints none: the delay is an hour here, so a
# loaded machine that takes more than the default 2 s cannot make it "long".
run(s ${CMAKE_COMMAND} -E env TRACKGEN_PROGRESS_DELAY=3600 ${TRACKGEN} metrics --json --generator bezier --envs 8)
if(s_err MATCHES "trackgen metrics:")
  message(FATAL_ERROR "a metrics run shorter than TRACKGEN_PROGRESS_DELAY=3600 printed progress:\n${s_err}")
endif()

# bench: its workers report through Progress (one line at the end of this tiny
# run when stderr is not a terminal, naming the last point); --quiet silences
# them and the plan lines; stdout (the tables) and the JSON-lines file keep
# their shape and carry no progress.
file(MAKE_DIRECTORY ${OUT})
set(bench bench --generator bezier --envs 64 --threads-list 1 --warmup 1 --reps 2 --time-budget 0)
run(b ${now} ${bench} --json-out ${OUT}/bench.jsonl)
if(NOT b_err MATCHES "trackgen bench sweep t=1: 1/1 points [^\n]*; last: bezier E=64 graph: median")
  message(FATAL_ERROR "bench with TRACKGEN_PROGRESS_DELAY=0 printed no progress on stderr:\n${b_err}")
endif()
file(READ ${OUT}/bench.jsonl b_jsonl)
check_json_lines("bench --json-out" "${b_jsonl}")
run(bq ${now} ${bench} --quiet --json-out ${OUT}/bench-quiet.jsonl)
if(bq_err MATCHES "trackgen bench [a-z]+ t=|\\[bench")
  message(FATAL_ERROR "bench --quiet printed progress or plan lines:\n${bq_err}")
endif()
foreach(o b_out bq_out)
  if(${o} MATCHES "trackgen bench [a-z]+ t=|\\[bench" OR NOT ${o} MATCHES "bezier")
    message(FATAL_ERROR "bench stdout lacks its tables or carries progress:\n${${o}}")
  endif()
endforeach()
string(REGEX MATCHALL "\n" b_lines "${b_out}")
string(REGEX MATCHALL "\n" bq_lines "${bq_out}")
list(LENGTH b_lines nb)
list(LENGTH bq_lines nbq)
if(NOT nb EQUAL nbq)
  message(FATAL_ERROR "bench stdout differs with --quiet (${nb} vs ${nbq} lines):\n${b_out}\n---\n${bq_out}")
endif()
run(bs ${TRACKGEN} ${bench} --json-out ${OUT}/bench-short.jsonl)
if(bs_err MATCHES "trackgen bench [a-z]+ t=")
  message(FATAL_ERROR "a short bench run (default 2 s delay) printed progress:\n${bs_err}")
endif()

if(HDF5)
  file(REMOVE_RECURSE ${OUT})
  run(h ${now} generate --format hdf5 --envs 10 --chunk-envs 4 --out ${OUT})
  if(NOT h_err MATCHES "trackgen generate: 4/10 envs" OR NOT h_err MATCHES "trackgen generate: 10/10 envs")
    message(FATAL_ERROR "generate --format hdf5 in chunks of 4 printed no per-chunk progress:\n${h_err}")
  endif()
  if(NOT h_out MATCHES "chunks +3 of up to 4 envs" OR NOT EXISTS ${OUT}/tracks.h5)
    message(FATAL_ERROR "generate --format hdf5: no ${OUT}/tracks.h5 in 3 chunks:\n${h_out}")
  endif()
  run(g ${TRACKGEN} generate --mode gates --format hdf5 --envs 3 --out ${OUT})
  if(NOT g_out MATCHES "gates.h5" OR NOT EXISTS ${OUT}/gates.h5)
    message(FATAL_ERROR "generate --mode gates --format hdf5 wrote no ${OUT}/gates.h5:\n${g_out}")
  endif()
  file(GLOB leftovers ${OUT}/.*)
  if(leftovers)
    message(FATAL_ERROR "generate --format hdf5 left temporaries: ${leftovers}")
  endif()
else()
  file(REMOVE_RECURSE ${OUT})
  execute_process(COMMAND ${TRACKGEN} generate --format hdf5 --envs 4 --out ${OUT}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0 OR NOT err MATCHES "libhdf5-dev" OR EXISTS ${OUT})
    message(FATAL_ERROR "generate --format hdf5 without HDF5 must fail before any work, naming libhdf5-dev:\n${err}")
  endif()
endif()
