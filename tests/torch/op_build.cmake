# Builds a library with `npusim op build` and runs an op of it with `npusim run --plugin`.
# -DNPUSIM=<exe> -DOUT_DIR=<dir> -DNAME=<lib> -DCOMPUTE=<a.cpp> -DSHAPE=<b.cpp> -DSCENARIO=<yaml>
# -DREGEX=<the run's output must match> [-DBUILD_REGEX=<op build's output must match>] [-DEXTRA=<flag>]
# [-DRUN_RC=<the run's exit code, default 0>]
set(lib ${OUT_DIR}/lib${NAME}.so)
file(REMOVE ${lib})
set(extra)
if(DEFINED EXTRA)
  set(extra ${EXTRA})
endif()
execute_process(COMMAND ${NPUSIM} op build --name ${NAME} --compute ${COMPUTE} --shape ${SHAPE} ${extra} -o ${lib}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "op build: exit code ${rc}\n${out}${err}")
endif()
if(DEFINED BUILD_REGEX AND NOT "${out}${err}" MATCHES "${BUILD_REGEX}")
  message(FATAL_ERROR "op build output does not match '${BUILD_REGEX}':\n${out}${err}")
endif()
if(NOT DEFINED RUN_RC)
  set(RUN_RC 0)
endif()
execute_process(COMMAND ${NPUSIM} run --plugin ${lib} ${SCENARIO}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL RUN_RC)
  message(FATAL_ERROR "run: exit code ${rc}, expected ${RUN_RC}\n${out}${err}")
endif()
if(NOT "${out}${err}" MATCHES "${REGEX}")
  message(FATAL_ERROR "run output does not match '${REGEX}':\n${out}${err}")
endif()
