# `npusim sweep` (docs/sweep.md): unit tests of the plan, validation, merge and Slurm scripts;
# end-to-end runs of points as processes; the single-node Slurm test.
add_executable(test_sweep main.cpp sim/tools/test_sweep.cpp)
target_link_libraries(test_sweep PRIVATE npusim_sim Catch2::Catch2 npusim_flags)
target_compile_definitions(test_sweep PRIVATE NPUSIM_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
catch_discover_tests(test_sweep)

foreach(case local resume reject point_collect interrupt doc_example)
  add_test(NAME sweep.${case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/sweep/sweep_cli.sh $<TARGET_FILE:npusim> ${case})
endforeach()

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
