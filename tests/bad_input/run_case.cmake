# One case of the bad-input suite (cases.txt): runs npusim in a fresh scratch folder and checks
# the exit code, the message (stdout+stderr must match REGEX; an exit code of 2 must carry the
# one error prefix `npusim: error: `) and that every output left behind is valid: a .json file
# parses as JSON (a .jsonl file line by line), a .vcd file has its header and a final time line.
# -DNPUSIM=<program> -DRC=<exit code> -DREGEX=<regex> -DARGS=<args, '|'-separated>
# -DSCRATCH=<folder> -DSRC=<source dir>
file(REMOVE_RECURSE "${SCRATCH}")
file(MAKE_DIRECTORY "${SCRATCH}")
string(REPLACE "@S@" "${SCRATCH}" ARGS "${ARGS}")
string(REPLACE "@D@" "${SRC}/tests/bad_input/data" ARGS "${ARGS}")
string(REPLACE "@S@" "${SCRATCH}" REGEX "${REGEX}")
string(REPLACE "|" ";" ARGS "${ARGS}")
execute_process(COMMAND ${NPUSIM} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                WORKING_DIRECTORY "${SRC}" TIMEOUT 60)
set(all "${out}${err}")
if(NOT rc STREQUAL RC)
  message(FATAL_ERROR "exit code ${rc}, expected ${RC}\n${all}")
endif()
if(NOT all MATCHES "${REGEX}")
  message(FATAL_ERROR "output does not match '${REGEX}':\n${all}")
endif()
if(RC EQUAL 2 AND NOT err MATCHES "(^|\n)npusim: error: ")
  message(FATAL_ERROR "exit 2 without the 'npusim: error: ' prefix on stderr:\n${all}")
endif()
if(all MATCHES "terminate called|Segmentation|AddressSanitizer|runtime error:")
  message(FATAL_ERROR "crash:\n${all}")
endif()
file(GLOB outputs "${SCRATCH}/*")
foreach(f IN LISTS outputs)
  file(READ "${f}" text)
  if(f MATCHES "\\.json$")
    string(JSON type ERROR_VARIABLE jerr TYPE "${text}")
    if(jerr)
      message(FATAL_ERROR "${f} is not valid JSON: ${jerr}")
    endif()
  elseif(f MATCHES "\\.vcd$" AND NOT text STREQUAL "")
    # A timestamp line and a whole last line ('#' is also a signal id: "0#" is a value change).
    if(NOT text MATCHES "\\$enddefinitions \\$end" OR NOT text MATCHES "\n#[0-9]+\n" OR NOT text MATCHES "\n$")
      message(FATAL_ERROR "${f} is not a complete VCD file:\n${text}")
    endif()
  endif()
endforeach()
