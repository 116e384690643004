# Golden outputs of every shipped scenario: deterministic runs, summary and report pinned.
# Regenerate after an intended change: NPUSIM_UPDATE_GOLDEN=1 ctest -R golden
set(golden_out ${CMAKE_CURRENT_BINARY_DIR}/golden)
file(MAKE_DIRECTORY ${golden_out})
function(npusim_golden name scenario)
  add_test(NAME golden.${name}
           COMMAND ${CMAKE_COMMAND} -DNPUSIM=$<TARGET_FILE:npusim> -DSCENARIO=${scenario}
                   -DNAME=${name} -DGOLDEN_DIR=${CMAKE_CURRENT_SOURCE_DIR}/golden
                   -DOUT_DIR=${golden_out} ${ARGN} -P ${CMAKE_CURRENT_SOURCE_DIR}/run_golden.cmake
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endfunction()
npusim_golden(default "")
npusim_golden(tensorstream_methods scenarios/tensorstream_methods.yaml)
npusim_golden(stack_switch_deep scenarios/stack_switch_deep.yaml)
npusim_golden(stack_overflow scenarios/stack_overflow.yaml)
npusim_golden(dma_window_straddle scenarios/dma_window_straddle.yaml)
npusim_golden(dataram_fragmentation scenarios/dataram_fragmentation.yaml)
npusim_golden(dataram_header_corruption scenarios/dataram_header_corruption.yaml)
npusim_golden(custom_op_relu scenarios/custom_op_relu.yaml)
npusim_golden(custom_op_deep_calls scenarios/custom_op_deep_calls.yaml)
# snitch-cluster scenarios (docs/snitch-cluster.md)
npusim_golden(snitch_dma_tiling scenarios/snitch/dma_tiling.yaml)
npusim_golden(snitch_core_local scenarios/snitch/core_local.yaml)
npusim_golden(snitch_l1_overflow scenarios/snitch/l1_overflow.yaml)
npusim_golden(snitch_l3_exact_fit scenarios/snitch/l3_exact_fit.yaml)
npusim_golden(snitch_remote_exchange scenarios/snitch/remote_exchange.yaml)

