# npusim with its standard output on /dev/full (every write fails): exit 2 and a message
# naming standard output, not a silent exit 0 with the result lost.
# -DNPUSIM=<program> -DARGS=<args, '|'-separated> -DSRC=<source dir>
string(REPLACE "|" ";" ARGS "${ARGS}")
execute_process(COMMAND ${NPUSIM} ${ARGS} RESULT_VARIABLE rc OUTPUT_FILE /dev/full
                ERROR_VARIABLE err WORKING_DIRECTORY "${SRC}" TIMEOUT 60)
if(NOT rc STREQUAL 2)
  message(FATAL_ERROR "exit code ${rc}, expected 2\n${err}")
endif()
if(NOT err MATCHES "npusim: error: cannot write standard output")
  message(FATAL_ERROR "no message naming standard output:\n${err}")
endif()
