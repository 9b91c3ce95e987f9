# ctest check of `trackgen generate` under mpiexec: one process without MPI,
# then `mpiexec -n R` for R in RANKS, each writing tracks.json and tracks.svg;
# the outputs of every R must equal the single-process ones byte for byte.
#   cmake -DTRACKGEN=<exe> -DMPIEXEC=<mpiexec> "-DMPIEXEC_FLAGS=<flags>" -DGENERATOR=<name>
#         -DRANKS=1;2 -DOUT=<dir> -P check-mpi-generate.cmake
set(args generate --generator ${GENERATOR} --envs 37 --seed 11 --repeat 1)
execute_process(COMMAND ${TRACKGEN} --threads 1 ${args} --out ${OUT}/single
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "trackgen generate (one process) failed (${rc}): ${out}${err}")
endif()
foreach(r IN LISTS RANKS)
  execute_process(COMMAND ${MPIEXEC} -n ${r} ${MPIEXEC_FLAGS} ${TRACKGEN} --threads 1 ${args} --out ${OUT}/ranks${r}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "mpiexec -n ${r} trackgen generate failed (${rc}): ${out}${err}")
  endif()
  if(r GREATER 1 AND NOT out MATCHES "ranks +${r} \\(MPI")
    message(FATAL_ERROR "mpiexec -n ${r} trackgen generate did not run over ${r} ranks: ${out}")
  endif()
  foreach(f tracks.json tracks.svg)
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/single/${f} ${OUT}/ranks${r}/${f}
                    RESULT_VARIABLE differ)
    if(NOT differ EQUAL 0)
      message(FATAL_ERROR "${f} of mpiexec -n ${r} differs from the single-process one")
    endif()
  endforeach()
  message(STATUS "mpiexec -n ${r}: tracks.json and tracks.svg equal the single-process ones")
endforeach()
