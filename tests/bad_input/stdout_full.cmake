# npusim with its standard output on a full device (every write fails): exit 2 and a message
# naming standard output, not a silent exit 0 with the result lost. The device is a private
# node in the case's own scratch folder (mknod, root only; otherwise the case is skipped), never
# the system's /dev/full; it must still be there, a character device, afterwards.
# -DNPUSIM=<program> -DARGS=<args, '|'-separated> -DSRC=<source dir> -DSCRATCH=<folder>
file(REMOVE_RECURSE "${SCRATCH}")
file(MAKE_DIRECTORY "${SCRATCH}")
execute_process(COMMAND mknod "${SCRATCH}/full" c 1 7 RESULT_VARIABLE mk ERROR_QUIET)
if(NOT mk EQUAL 0)
  message("SKIP: a private full device needs root (mknod)")
  return()
endif()
string(REPLACE "|" ";" ARGS "${ARGS}")
execute_process(COMMAND ${NPUSIM} ${ARGS} RESULT_VARIABLE rc OUTPUT_FILE "${SCRATCH}/full"
                ERROR_VARIABLE err WORKING_DIRECTORY "${SRC}" TIMEOUT 60)
if(NOT rc STREQUAL 2)
  message(FATAL_ERROR "exit code ${rc}, expected 2\n${err}")
endif()
if(NOT err MATCHES "npusim: error: cannot write standard output: No space left on device")
  message(FATAL_ERROR "no message naming standard output:\n${err}")
endif()
execute_process(COMMAND stat -c %F "${SCRATCH}/full" OUTPUT_VARIABLE kind OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT kind STREQUAL "character special file")
  message(FATAL_ERROR "the private full device is gone or replaced: ${kind}")
endif()
