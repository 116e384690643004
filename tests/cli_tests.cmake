# End-to-end checks of the npusim program: exit codes and messages users see.
function(npusim_cli_test name rc regex)
  string(REPLACE ";" "|" args "${ARGN}")
  add_test(NAME cli.${name}
           COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:npusim>|${args}" -DRC=${rc}
                   "-DREGEX=${regex}" -P ${CMAKE_CURRENT_SOURCE_DIR}/run_cli.cmake
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endfunction()

npusim_cli_test(help 0 "heap" --help)
npusim_cli_test(no_subcommand 2 "subcommand")
npusim_cli_test(heap_replay_help 0 "OPS_FILE" heap replay --help)
npusim_cli_test(replay_example_summary 0 "descriptor exhaustion events +0.*layout warning|layout warning.*descriptor exhaustion events +0"
                heap replay --allocator neuron-dataram --summary scenarios/heap/dataram_mixed.ops)
npusim_cli_test(replay_exhaustion 0 "descriptor exhaustion events +1"
                heap replay --pool-size 0x1000 --blocks 8 --summary scenarios/heap/descriptor_exhaustion.ops)
npusim_cli_test(replay_quirks 0 "\"status\":-99"
                heap replay --pool-base 0x10000001 --pool-size 0x1000 scenarios/heap/xmem_quirks.ops)
npusim_cli_test(replay_bad_line 2 "tests/data/bad_op.ops:3: unknown op .*'allocate'"
                heap replay tests/data/bad_op.ops)
npusim_cli_test(replay_missing_file 2 "npusim: error: nope.ops: the ops file does not exist .at 'nope.ops'." heap replay nope.ops)
npusim_cli_test(replay_bad_number 2 "--pool-size.*'12k'" heap replay --pool-size 12k tests/data/bad_op.ops)
npusim_cli_test(replay_bad_allocator 2 "allocator" heap replay --allocator tlsf tests/data/bad_op.ops)
npusim_cli_test(replay_snitch_l1_trap 0 "\"trap\":true.*past_end"
                heap replay --allocator snitch-l1 scenarios/heap/snitch_l1.ops)
npusim_cli_test(replay_snitch_stop_on_trap 1 "\"trap\":true"
                heap replay --allocator snitch-l1 --stop-on-trap scenarios/heap/snitch_l1.ops)
npusim_cli_test(replay_snitch_bad_core 2 "core"
                heap replay --allocator snitch-l1 --core-idx 12 scenarios/heap/snitch_l1.ops)

# snitch-cluster runs: bad input names file, line and column (exit 2); traps without
# expectations fail the run (exit 1).
# A hung core did not finish: no "end 0.0 ns".
npusim_cli_test(snitch_hung_no_end 1 "c0_core0 +hung +did not finish  , .*c0_dm +finished +end +156.0 ns"
                run tests/data/snitch_hung.yaml)
npusim_cli_test(snitch_bad_step 2 "tests/data/snitch_bad_step.yaml:5:5: unknown step 'alloc'"
                run tests/data/snitch_bad_step.yaml)
npusim_cli_test(snitch_unbound 2 "tests/data/snitch_unbound.yaml:4:14: compute: 'tile' is used before any step binds it"
                run tests/data/snitch_unbound.yaml)
npusim_cli_test(snitch_bad_set 2 "--set: must be between 1 and 64 .at 'cluster.clusters=0'"
                run scenarios/snitch/core_local.yaml --set cluster.clusters=0)
npusim_cli_test(snitch_bad_expect 2 "tests/data/snitch_bad_expect.yaml:4:3: .*unknown expectation key"
                run tests/data/snitch_bad_expect.yaml)
npusim_cli_test(snitch_vcd_unwritable 2 "nope/x.vcd"
                run scenarios/snitch/core_local.yaml --vcd /nonexistent/nope/x.vcd)
npusim_cli_test(snitch_trap_fails_run 1 "TRAP c0_core0: snrt_l1_alloc_cluster_local.*result: FAIL"
                run tests/data/snitch_trap.yaml)
# With two clusters there are two DM cores, so two undefined results: the expectation fails.
npusim_cli_test(snitch_platform_override 1 "2 clusters.*undefined_results == 1 but is 2"
                run scenarios/snitch/core_local.yaml --set cluster.clusters=2)
npusim_cli_test(version 0 "^npusim [0-9]+\\.[0-9]+\\.[0-9]+( \\(git [0-9a-z.-]+\\))?\n$" --version)
# --dump-config: the effective profile reads back through --platform (tests/run_dump_config.cmake).
add_test(NAME cli.dump_config_round_trip
         COMMAND ${CMAKE_COMMAND} -DNPUSIM=$<TARGET_FILE:npusim> -DOUT=${CMAKE_CURRENT_BINARY_DIR}/dump_config
                 "-DSETS=dma.channels=2;heaps.num_blocks=16" "-DEXPECT=dma:\n  channels: 2\n"
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/run_dump_config.cmake
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
add_test(NAME cli.dump_config_snitch_round_trip
         COMMAND ${CMAKE_COMMAND} -DNPUSIM=$<TARGET_FILE:npusim> -DOUT=${CMAKE_CURRENT_BINARY_DIR}/dump_config_snitch
                 -DSCENARIO=scenarios/snitch/dma_tiling.yaml "-DSETS=cluster.clusters=2"
                 "-DEXPECT=cluster:\n  clusters: 2\n" -P ${CMAKE_CURRENT_SOURCE_DIR}/run_dump_config.cmake
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
npusim_cli_test(dump_config_bad_set 2 "--set: expected a non-negative integer.*dma.channels=0x"
                run --dump-config --set dma.channels=0x)
# Progress: on a pipe only with --progress (sim/output/progress.h).
npusim_cli_test(replay_progress 0 "heap replay scenarios/heap/dataram_mixed.ops: 100% \\([0-9]+/[0-9]+ ops\\)"
                heap replay --progress --summary scenarios/heap/dataram_mixed.ops)
npusim_cli_test(replay_snitch_progress 0 "heap replay scenarios/heap/snitch_l1.ops: 100% \\([0-9]+/[0-9]+ ops\\)"
                heap replay --progress --allocator snitch-l1 scenarios/heap/snitch_l1.ops)
add_test(NAME cli.replay_no_progress_on_a_pipe
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:npusim>|heap|replay|--summary|scenarios/heap/dataram_mixed.ops"
                 -DRC=0 "-DREGEX=descriptor" "-DNOT_REGEX=100%" -P ${CMAKE_CURRENT_SOURCE_DIR}/run_cli.cmake
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
# Trace control and progress of runs.
npusim_cli_test(run_trace_max_mb 0 "trace truncated at 0.01 MB .--trace-max-mb.: [1-9][0-9]* later events"
                run --trace ${CMAKE_CURRENT_BINARY_DIR}/cli_trace_max.json --trace-max-mb 0.01)
npusim_cli_test(run_trace_filter 0 "trace filter kept the matching tracks; [1-9][0-9]* events of other tracks dropped"
                run --trace ${CMAKE_CURRENT_BINARY_DIR}/cli_trace_filter.json --trace-filter dma,heaps)
npusim_cli_test(run_progress 0 "run <builtin:scenarios/default.yaml>: [0-9]+ steps, simulated [0-9.]+ [mun]?s"
                run --progress)
npusim_cli_test(snitch_run_progress 0 "run scenarios/snitch/dma_tiling.yaml: [0-9]+ steps, simulated"
                run --progress scenarios/snitch/dma_tiling.yaml)
add_test(NAME cli.run_no_progress_on_a_pipe
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:npusim>|run" -DRC=0 "-DREGEX=result: PASS"
                 "-DNOT_REGEX=steps, simulated" -P ${CMAKE_CURRENT_SOURCE_DIR}/run_cli.cmake
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})

# Inputs of the newest surfaces given in hostile forms: an empty --trace is not "no trace";
# a FIFO as a kernel source is refused at once (the compiler would block on it).
add_test(NAME cli.traffic_trace_empty_name
         COMMAND ${CMAKE_COMMAND} "-DCMD=sh|-c|\"$0\" traffic --trace '' --requests 10|$<TARGET_FILE:npusim>" -DRC=2
                 "-DREGEX=^npusim: error: --trace: needs a file name, not an empty string" -P ${CMAKE_CURRENT_SOURCE_DIR}/run_cli.cmake
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
add_test(NAME cli.traffic_write_trace_empty_name
         COMMAND ${CMAKE_COMMAND} "-DCMD=sh|-c|\"$0\" traffic --write-trace '' --requests 10|$<TARGET_FILE:npusim>" -DRC=2
                 "-DREGEX=^npusim: error: --write-trace: needs a file name" -P ${CMAKE_CURRENT_SOURCE_DIR}/run_cli.cmake
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
add_test(NAME cli.op_build_fifo_source
         COMMAND ${CMAKE_COMMAND}
                 "-DCMD=sh|-c|d=$(mktemp -d) && trap 'rm -rf \"$d\"' EXIT && mkfifo \"$d/k.cpp\" && \"$0\" op build --name x --compute \"$d/k.cpp\" --shape \"$d/k.cpp\" -o \"$d/libx.so\"|$<TARGET_FILE:npusim>"
                 -DRC=2 "-DREGEX=npusim: error: op build: --compute: is not a regular file .a FIFO or a device.: a source must be a file"
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/run_cli.cmake
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
# A sweep point whose report was cut short: --collect says which point and why (exit 1).
add_test(NAME cli.sweep_collect_cut_report
         COMMAND ${CMAKE_COMMAND}
                 "-DCMD=sh|-c|d=$(mktemp -d) && trap 'rm -rf \"$d\"' EXIT && printf 'name: s\\nscenario: default\\ngrid:\\n  dma.channels: [1]\\n' > \"$d/s.yaml\" && \"$0\" sweep \"$d/s.yaml\" -o \"$d/out\" -q > /dev/null && head -c 300 \"$d/out/points/00000/report.json\" > \"$d/r\" && mv \"$d/r\" \"$d/out/points/00000/report.json\" && \"$0\" sweep --collect \"$d/out\"|$<TARGET_FILE:npusim>"
                 -DRC=1 "-DREGEX=1 failed.*npusim: sweep: point 0 .failed.: its report .*points/00000/report.json is not a complete npusim report .cut short or damaged."
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/run_cli.cmake
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
