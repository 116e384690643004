# Runs `npusim run SCENARIO --report REPORT` for a torch_op scenario and compares the summary
# and the report with tests/golden/NAME.{summary.txt,report.json}. NPUSIM_UPDATE_GOLDEN=1
# rewrites them instead. -DNPUSIM -DSCENARIO -DNAME -DGOLDEN_DIR -DOUT_DIR
set(report ${OUT_DIR}/${NAME}.report.json)
execute_process(COMMAND ${NPUSIM} run ${SCENARIO} --report ${report}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "exit code ${rc}\n${out}\n${err}")
endif()
string(REGEX REPLACE "\n  report: [^\n]*" "" out "${out}")
file(READ ${report} report_text)
if("$ENV{NPUSIM_UPDATE_GOLDEN}" STREQUAL "1")
  file(WRITE ${GOLDEN_DIR}/${NAME}.summary.txt "${out}")
  file(WRITE ${GOLDEN_DIR}/${NAME}.report.json "${report_text}")
  return()
endif()
file(READ ${GOLDEN_DIR}/${NAME}.summary.txt want_out)
file(READ ${GOLDEN_DIR}/${NAME}.report.json want_report)
if(NOT out STREQUAL want_out)
  message(FATAL_ERROR "summary differs from ${GOLDEN_DIR}/${NAME}.summary.txt:\n${out}")
endif()
if(NOT report_text STREQUAL want_report)
  message(FATAL_ERROR "report differs from ${GOLDEN_DIR}/${NAME}.report.json")
endif()
