# The HTML report in a real browser (docs/report.md): every shipped scenario's report is
# generated and loaded in headless Chromium; the test fails on a console message, on the page's
# own check, or on a missing chart (check_html_report.py). One ctest test per page.
# Bad input to `npusim report` (no browser needed): file, line and value, exit 2.
set(html_x ${CMAKE_CURRENT_BINARY_DIR}/cli_report.html)
npusim_cli_test(report_missing 2 "nope.json: the report file does not exist .at 'nope.json'." report nope.json --html ${html_x})
npusim_cli_test(report_bad_json 2 "tests/data/bad_report.json:3:24: not valid JSON: invalid literal .at .oops}.." report tests/data/bad_report.json --html ${html_x})
npusim_cli_test(report_not_a_report 2 "tests/data/not_a_report.json:1: not a npusim report" report tests/data/not_a_report.json --html ${html_x})
npusim_cli_test(report_bad_trace 2 "tests/data/bad_trace.json:3: not a trace event: '{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":oops}'"
                report tests/golden/default.report.json --trace tests/data/bad_trace.json --html ${html_x})
npusim_cli_test(report_trace_count 2 "--trace: 1 trace.s. for 2 report.s." report tests/golden/default.report.json
                tests/golden/default.report.json --trace tests/data/bad_trace.json --html ${html_x})
npusim_cli_test(report_needs_html 2 "--html is required" report tests/golden/default.report.json)
npusim_cli_test(report_three 2 "REPORT" report tests/golden/default.report.json tests/golden/default.report.json
                tests/golden/default.report.json --html ${html_x})
npusim_cli_test(run_html_unwritable 2 "/nonexistent/r.html" run scenarios/stack_overflow.yaml --html /nonexistent/r.html)
# Bad input to `npusim report --sweep`: exit 2 naming the file (and line).
npusim_cli_test(report_sweep_missing 2 "nope/results.jsonl: no such sweep directory" report --sweep nope --html ${html_x})
npusim_cli_test(report_sweep_bad_line 2 "tests/data/bad_sweep/results.jsonl:2: not a JSON object .a line of results.jsonl. .at '..point.:1,'"
                report --sweep tests/data/bad_sweep --html ${html_x})
npusim_cli_test(report_sweep_and_report 2 "give either --sweep DIR or REPORT files" report tests/golden/default.report.json
                --sweep tests/data/bad_sweep --html ${html_x})

find_program(NPUSIM_CHROMIUM NAMES chromium chromium-browser)
find_package(Python3 COMPONENTS Interpreter)
set(html_check ${CMAKE_CURRENT_LIST_DIR}/check_html_report.py)
set(html_out ${CMAKE_CURRENT_BINARY_DIR}/html)
if(NOT NPUSIM_CHROMIUM OR NOT Python3_Interpreter_FOUND)
  # Not skipped silently: the suite says what is missing.
  add_test(NAME html.browser_missing
           COMMAND ${CMAKE_COMMAND} -E echo "install chromium and python3 (tools/deps.sh) to test the HTML report")
  set_tests_properties(html.browser_missing PROPERTIES WILL_FAIL TRUE)
  return()
endif()
# The sanitizer build generates every page with its instrumented npusim but loads none: the
# page's scripts are the same in every build, and the release build loads every page. The
# checker's own tests (--inject-js: a broken page must fail in the browser) run there only.
if(NPUSIM_SANITIZE)
  set(html_browser --no-browser)
else()
  set(html_browser --chromium ${NPUSIM_CHROMIUM})
endif()
function(npusim_html_test name kind scenario)
  if(NPUSIM_SANITIZE AND "--inject-js" IN_LIST ARGN)
    return()
  endif()
  add_test(NAME html.${kind}.${name}
           COMMAND ${Python3_EXECUTABLE} ${html_check} --npusim $<TARGET_FILE:npusim>
                   ${html_browser} --out ${html_out}/${name} --kind ${kind} ${ARGN} ${scenario}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(html.${kind}.${name} PROPERTIES ENVIRONMENT "SC_COPYRIGHT_MESSAGE=DISABLE" TIMEOUT 300)
endfunction()

# Every shipped scenario, with its trace.
file(GLOB html_scenarios RELATIVE ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/scenarios/*.yaml
     ${PROJECT_SOURCE_DIR}/scenarios/snitch/*.yaml)
foreach(sc ${html_scenarios})
  get_filename_component(n ${sc} NAME_WE)
  if(sc MATCHES "scenarios/snitch/")
    set(n snitch_${n})
  endif()
  if(n STREQUAL "torch_plugin_clamp")
    npusim_html_test(${n} single ${sc} --plugin $<TARGET_FILE:npusim_plugin_example>)
  elseif(n STREQUAL "torch_opbuild_negate")
    npusim_html_test(${n} single ${sc} --plugin $<TARGET_FILE:npusim_opbuild_example>)
  else()
    npusim_html_test(${n} single ${sc})
  endif()
endforeach()
# The other kinds: a report without its trace, two runs compared, `npusim run --html`.
npusim_html_test(default notrace scenarios/default.yaml)
npusim_html_test(snitch_dma_tiling notrace scenarios/snitch/dma_tiling.yaml)
npusim_html_test(default compare scenarios/default.yaml --set-b dma.burst_bytes=128)
npusim_html_test(snitch_dma_tiling compare scenarios/snitch/dma_tiling.yaml --set-b tcdm.banks=16)
npusim_html_test(torch_relu_multicore compare scenarios/torch_relu_multicore.yaml
                 --scenario-b scenarios/torch_relu_standard.yaml)
npusim_html_test(default run scenarios/default.yaml)
npusim_html_test(snitch_dma_tiling run scenarios/snitch/dma_tiling.yaml)
npusim_html_test(torch_relu_multicore run scenarios/torch_relu_multicore.yaml)

# The checker itself: a broken page must fail it (a console message; a heap map whose data is
# gone; a block whose time is not a number; a torch page without a kind of a core's time or
# without its dataram heap map).
# (No semicolons: they would split the CMake argument; the comma operator chains instead.)
set(html_broken_data "var e=document.getElementById('npusim-data'),d=JSON.parse(e.textContent)")
npusim_html_test(console_message single scenarios/dataram_fragmentation.yaml --inject-js "console.log('x')")
npusim_html_test(heap_map_missing single scenarios/dataram_fragmentation.yaml
                 --inject-js "${html_broken_data},x=(d.runs[0].trace.heaps={},e.textContent=JSON.stringify(d))")
npusim_html_test(block_not_a_number single scenarios/dataram_fragmentation.yaml
                 --inject-js "${html_broken_data},x=(d.runs[0].trace.heaps.dataram.blocks[2]='x',e.textContent=JSON.stringify(d))")
# A torch page that leaves out a kind of one core's time, and one whose dataram heap map has no data.
npusim_html_test(torch_kind_missing single scenarios/torch_relu_multicore.yaml
                 --inject-js "${html_broken_data},x=(delete d.runs[0].report.cores[0].breakdown_cycles.library,e.textContent=JSON.stringify(d))")
npusim_html_test(torch_heap_map_missing single scenarios/torch_relu_tcm.yaml
                 --inject-js "${html_broken_data},x=(delete d.runs[0].trace.heaps.core0_dataram,e.textContent=JSON.stringify(d))")
if(NOT NPUSIM_SANITIZE)  # (the browser tests of the checker itself)
  set_tests_properties(html.single.torch_kind_missing PROPERTIES PASS_REGULAR_EXPRESSION "FAIL: chart r0-core-breakdown drew 40 marks. the report calls for 48")
  set_tests_properties(html.single.torch_heap_map_missing PROPERTIES PASS_REGULAR_EXPRESSION "FAIL: chart r0-heapmap-core0_dataram is missing")
  set_tests_properties(html.single.console_message PROPERTIES PASS_REGULAR_EXPRESSION "FAIL: console messages.*\"x\"")
  set_tests_properties(html.single.heap_map_missing PROPERTIES PASS_REGULAR_EXPRESSION "FAIL: chart r0-heapmap-dataram is missing")
  set_tests_properties(html.single.block_not_a_number PROPERTIES PASS_REGULAR_EXPRESSION "FAIL: .*attribute x: Expected length, .NaN")
endif()

# Sweep plots (`npusim report --sweep DIR --html`, docs/sweep.md): a 6-point sweep of the default
# scenario; and the checker on a broken sweep page (a point's metric that is not a number; the
# plotted metrics gone).
npusim_html_test(sweep_plot sweep tests/data/sweep_plot.yaml)
npusim_html_test(sweep_not_a_number sweep tests/data/sweep_plot.yaml
                 --inject-js "${html_broken_data},x=(d.points[1].metrics.duration='x',d.points[1].status='ok',e.textContent=JSON.stringify(d))")
npusim_html_test(sweep_metrics_gone sweep tests/data/sweep_plot.yaml
                 --inject-js "${html_broken_data},x=(d.metrics=[],e.textContent=JSON.stringify(d))")
if(NOT NPUSIM_SANITIZE)
  set_tests_properties(html.sweep.sweep_not_a_number PROPERTIES PASS_REGULAR_EXPRESSION "FAIL: chart sweep-duration--hbm_tck_ns drew 5 of 6 marks|FAIL: .*NaN")
  # (the page draws a dot for every point that has a value, so a value that is not a number fails)
  set_tests_properties(html.sweep.sweep_metrics_gone PROPERTIES PASS_REGULAR_EXPRESSION "FAIL: chart sweep-[a-z_.]+--hbm_tck_ns is missing")
endif()
