# Runs one npusim command line and checks its exit code and output.
# -DCMD="npusim|arg|..." -DRC=<expected exit code> -DREGEX=<must match stdout+stderr>
# [-DNOT_REGEX=<must not match>]
string(REPLACE "|" ";" CMD "${CMD}")
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
if(NOT rc EQUAL RC)
  message(FATAL_ERROR "exit code ${rc}, expected ${RC}\n${all}")
endif()
if(DEFINED REGEX AND NOT all MATCHES "${REGEX}")
  message(FATAL_ERROR "output does not match '${REGEX}':\n${all}")
endif()
if(DEFINED NOT_REGEX AND all MATCHES "${NOT_REGEX}")
  message(FATAL_ERROR "output matches '${NOT_REGEX}':\n${all}")
endif()
