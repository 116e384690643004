# The shipped schemas (docs/schema/) are what `npusim schema` generates now.
# -DNPUSIM=... -DSHIPPED=docs/schema -DOUT=<scratch dir>. Regenerate: npusim schema --out docs/schema
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
execute_process(COMMAND ${NPUSIM} schema --out ${OUT} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "npusim schema failed (${rc}): ${out}${err}")
endif()
file(GLOB made RELATIVE ${OUT} ${OUT}/*.json)
file(GLOB shipped RELATIVE ${SHIPPED} ${SHIPPED}/*.json)
if(NOT made STREQUAL shipped)
  message(FATAL_ERROR "docs/schema holds [${shipped}] but npusim schema makes [${made}]")
endif()
foreach(f ${made})
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/${f} ${SHIPPED}/${f}
                  RESULT_VARIABLE diff)
  if(NOT diff EQUAL 0)
    message(FATAL_ERROR "docs/schema/${f} differs from what npusim schema generates now: "
                        "run `npusim schema --out docs/schema` and commit the result")
  endif()
endforeach()
