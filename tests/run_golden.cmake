# Runs `npusim run SCENARIO --report REPORT` and compares the summary (stdout) and the report
# with the golden files. -DNPUSIM=... -DSCENARIO=... -DNAME=... -DGOLDEN_DIR=... -DOUT_DIR=...
# [-DRC=expected exit code, default 0]. With the environment variable NPUSIM_UPDATE_GOLDEN=1
# the golden files are rewritten instead.
if(NOT DEFINED RC)
  set(RC 0)
endif()
set(report ${OUT_DIR}/${NAME}.report.json)
set(trace ${OUT_DIR}/${NAME}.trace.json)
set(args run)
if(SCENARIO)
  list(APPEND args ${SCENARIO})
endif()
execute_process(COMMAND ${NPUSIM} ${args} --report ${report}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL RC)
  message(FATAL_ERROR "exit code ${rc}, expected ${RC}\n${out}\n${err}")
endif()
# Paths of the written files differ between build directories.
string(REGEX REPLACE "\n  (report|trace): [^\n]*" "" out "${out}")
file(READ ${report} report_text)
if(DEFINED ENV{NPUSIM_UPDATE_GOLDEN})
  file(WRITE ${GOLDEN_DIR}/${NAME}.summary.txt "${out}")
  file(WRITE ${GOLDEN_DIR}/${NAME}.report.json "${report_text}")
  return()
endif()
file(READ ${GOLDEN_DIR}/${NAME}.summary.txt want)
if(NOT out STREQUAL want)
  file(WRITE ${OUT_DIR}/${NAME}.summary.txt "${out}")
  message(FATAL_ERROR "summary differs from ${GOLDEN_DIR}/${NAME}.summary.txt:\n"
                      "diff ${GOLDEN_DIR}/${NAME}.summary.txt ${OUT_DIR}/${NAME}.summary.txt\n${out}")
endif()
file(READ ${GOLDEN_DIR}/${NAME}.report.json want_report)
if(NOT report_text STREQUAL want_report)
  message(FATAL_ERROR "report differs: diff ${GOLDEN_DIR}/${NAME}.report.json ${report}")
endif()
