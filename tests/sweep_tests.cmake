# `npusim sweep` (docs/sweep.md): unit tests of the plan, validation, merge and Slurm scripts;
# end-to-end runs of points as processes; the single-node Slurm test.
target_sources(npusim_tests PRIVATE sim/tools/test_sweep.cpp)
add_test(NAME sweep.layering
         COMMAND ${CMAKE_COMMAND} "-DOBJECTS=$<JOIN:$<TARGET_OBJECTS:npusim_sim>,|>" -DNM=${CMAKE_NM}
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/sweep/layering.cmake)

foreach(case local resume reject point_collect interrupt collect_agrees)
  add_test(NAME sweep.${case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/sweep/sweep_cli.sh $<TARGET_FILE:npusim> ${case})
endforeach()
add_test(NAME sweep.plugin
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/sweep/sweep_cli.sh $<TARGET_FILE:npusim> plugin
                 $<TARGET_FILE:npusim_plugin_example>)

# Starts munged, slurmctld and slurmd of its own; 77 = skipped with the reason (never under CI=true).
add_test(NAME slurm.sweep
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/slurm/slurm_sweep.sh $<TARGET_FILE:npusim>
                 ${CMAKE_CURRENT_SOURCE_DIR}/slurm/sweep.yaml)
set_tests_properties(slurm.sweep PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600 RESOURCE_LOCK slurm LABELS slurm)

# The CMake package: install into a temporary prefix, build tests/consumer against it, run it.
add_test(NAME package.consumer
         COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${PROJECT_BINARY_DIR} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
                 -DWORK=${PROJECT_BINARY_DIR}/consumer-test -DCXX=${CMAKE_CXX_COMPILER}
                 -DLAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER} -DSANITIZE=${NPUSIM_SANITIZE}
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/consumer_test.cmake)
set_tests_properties(package.consumer PROPERTIES TIMEOUT 900 LABELS package)

# The shipped sweep files plan: every point valid (a key or value a profile refuses fails).
foreach(example dma_vs_hbm_clock energy_per_inference)
  add_test(NAME sweep.example_${example}
           COMMAND $<TARGET_FILE:npusim> sweep ${PROJECT_SOURCE_DIR}/scenarios/sweeps/${example}.yaml
                   --dry-run -o ${CMAKE_CURRENT_BINARY_DIR}/sweep-example-${example})
  set_tests_properties(sweep.example_${example} PROPERTIES PASS_REGULAR_EXPRESSION "points, all valid")
endforeach()
