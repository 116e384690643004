# Runs `npusim run SCENARIO --report REPORT` for a torch_op scenario and compares the summary
# and the report with tests/golden/NAME.{summary.txt,report.json}. NPUSIM_UPDATE_GOLDEN=1
# rewrites them instead. -DNPUSIM -DSCENARIO -DNAME -DGOLDEN_DIR -DOUT_DIR
set(report ${OUT_DIR}/${NAME}.report.json)
set(trace ${OUT_DIR}/${NAME}.trace.json)
execute_process(COMMAND ${NPUSIM} run ${SCENARIO} --report ${report} --trace ${trace}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "exit code ${rc}\n${out}\n${err}")
endif()
string(REGEX REPLACE "\n  (report|trace): [^\n]*" "" out "${out}")
# The trace opens as JSON and holds a slice for every library call and DMA transfer.
file(READ ${trace} trace_text)
string(JSON n ERROR_VARIABLE jerr LENGTH "${trace_text}" traceEvents)
if(jerr OR n LESS 4)
  message(FATAL_ERROR "trace ${trace} is not a trace-event file with events: ${jerr}")
endif()
file(READ ${report} report_text)
# The build's version differs between commits: its shape is checked, then it is masked.
string(REGEX MATCH "\n  \"npusim_version\": \"[0-9]+\\.[0-9]+\\.[0-9]+( \\(git [0-9a-z.-]+\\))?\",\n" ver "${report_text}")
if(NOT ver)
  message(FATAL_ERROR "report ${report}: no \"npusim_version\": \"X.Y.Z[ (git ...)]\" after npusim_report_version")
endif()
string(REPLACE "${ver}" "\n  \"npusim_version\": \"(this build)\",\n" report_text "${report_text}")
# The kernel's stack depth is measured on the host stack: it differs between compilers and
# builds (the sanitizers' frames), so its value is masked.
string(REGEX REPLACE "\"kernel_high_water\": [0-9]+" "\"kernel_high_water\": \"(host)\"" report_text "${report_text}")
string(REGEX REPLACE "high-water [0-9]+ B in the kernel" "high-water (host) B in the kernel" out "${out}")
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
