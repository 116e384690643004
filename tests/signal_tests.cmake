# Interrupted runs: every runner and tool stops on SIGINT/SIGTERM with complete
# outputs and exit 130/143; a second signal ends at once. One ctest test per case.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
foreach(case neuron_int neuron_term snitch_int snitch_term snitch_stream program_int firmware_int torch_int traffic_int traffic_term
             traffic_fifo_term traffic_write_trace_two
             replay_term second_signal sweep)
  add_test(NAME signal.${case}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/signals/signal_test.py
                   $<TARGET_FILE:npusim> ${case})
  set_tests_properties(signal.${case} PROPERTIES TIMEOUT 300 LABELS signal)
endforeach()
