# ctest check of the invalid reasons in `trackgen generate`: a batch whose
# half_width is below w_floor, so that no track is valid. It must exit 0, warn
# that no track is valid, summarize "8 invalid: 8 width", list the reason per
# track in tracks.json and draw it in tracks.svg.
#   cmake -DTRACKGEN=<exe> -DCONFIG=<json> -DOUT=<dir> -P check-invalid-reasons.cmake
execute_process(COMMAND ${TRACKGEN} generate --config ${CONFIG} --envs 8 --repeat 1 --out ${OUT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "trackgen generate failed (${rc}): ${out}${err}")
endif()
if(NOT out MATCHES "invalid +8 invalid: 8 width")
  message(FATAL_ERROR "no summary of the invalid reasons in: ${out}")
endif()
if(NOT err MATCHES "no track of the batch is valid")
  message(FATAL_ERROR "no warning that no track is valid on stderr: ${err}")
endif()
file(READ ${OUT}/tracks.json json)
math(EXPR last "8 - 1")
foreach(e RANGE ${last})
  string(JSON reasons GET "${json}" tracks ${e} invalid_reason)
  if(NOT reasons MATCHES "^\\[ *\"width\" *\\]$")
    message(FATAL_ERROR "tracks.json env ${e}: invalid_reason is ${reasons}, expected [\"width\"]")
  endif()
endforeach()
file(READ ${OUT}/tracks.svg svg)
if(NOT svg MATCHES ">width</text>")
  message(FATAL_ERROR "tracks.svg draws no reason under the invalid cells")
endif()
