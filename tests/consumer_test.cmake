# The consumer test (docs/use-the-models.md): installs this build into a fresh prefix,
# configures and builds tests/consumer (an out-of-tree SystemC platform) against the installed
# package, runs it and checks its result.
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK=... -DCXX=... [-DLAUNCHER=...] [-DSANITIZE=ON]
#         -P consumer_test.cmake
file(REMOVE_RECURSE ${WORK})
function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}${err}")
  endif()
  set(last_output "${out}${err}" PARENT_SCOPE)
endfunction()
step("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK}/prefix)
foreach(f lib/cmake/npusim/npusimConfig.cmake lib/cmake/npusim/npusimTargets.cmake
          include/npusim/models/hbm.h include/npusim/torch/torch.h include/npusim/neuron/neuron-utils.hpp bin/npusim
          share/npusim/snrt/include/snrt.h share/npusim/snrt/src/crt0.S
          share/npusim/neuron/include/neuron_device.h share/npusim/neuron/src/xmem_heap.c)
  if(NOT EXISTS ${WORK}/prefix/${f})
    message(FATAL_ERROR "the install has no ${f}")
  endif()
endforeach()
# The installed npusim cc finds the installed runtime (share/npusim/snrt), not the source tree's.
step("npusim cc from the install" ${WORK}/prefix/bin/npusim cc -v -o ${WORK}/hello.elf ${SOURCE_DIR}/tests/programs/hello.c)
if(NOT last_output MATCHES "-isystem [^ ]*/prefix/bin/\\.\\./share/npusim/snrt/include ")
  message(FATAL_ERROR "the installed npusim cc does not use the installed runtime:\n${last_output}")
endif()
# The same for the Neuron device library (share/npusim/neuron), which comes before the runtime.
step("npusim cc --platform neuron-gpsimd from the install" ${WORK}/prefix/bin/npusim cc --platform neuron-gpsimd -v
     -o ${WORK}/firmware.elf ${SOURCE_DIR}/tests/neuron_fw/firmware_main.c)
if(NOT last_output MATCHES "-isystem [^ ]*/prefix/bin/\\.\\./share/npusim/neuron/include -isystem [^ ]*/prefix/bin/\\.\\./share/npusim/snrt/include ")
  message(FATAL_ERROR "the installed npusim cc does not use the installed device library:\n${last_output}")
endif()
# The package must not point back into the source or build tree.
file(READ ${WORK}/prefix/lib/cmake/npusim/npusimTargets.cmake targets)
if(targets MATCHES "${SOURCE_DIR}/" OR targets MATCHES "${BUILD_DIR}/")
  message(FATAL_ERROR "npusimTargets.cmake names the source or build tree")
endif()
set(launcher "")
if(LAUNCHER)
  set(launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()
# A sanitizer build's consumer needs what every target of that build has (docs/use-the-models.md).
set(extra "")
if(SANITIZE)
  set(extra -DCONSUMER_EXTRA_SOURCES=${SOURCE_DIR}/cmake/asan_main_stack.cpp)
endif()
step("configure the consumer" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/consumer -B ${WORK}/build
     -DCMAKE_PREFIX_PATH=${WORK}/prefix -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=RelWithDebInfo
     ${launcher} ${extra})
step("build the consumer" ${CMAKE_COMMAND} --build ${WORK}/build -j2)
step("run the consumer" ${WORK}/build/copy_platform)
if(NOT last_output MATCHES "copy_platform: 65536 bytes by DMA in [0-9.]+ ns; hbm reads [1-9][0-9]* writes [1-9][0-9]* .*copy exact")
  message(FATAL_ERROR "unexpected consumer output:\n${last_output}")
endif()
message(STATUS "${last_output}")
file(REMOVE_RECURSE ${WORK})
