# Firmware programs on the neuron-gpsimd management core (docs/neuron-programs.md): the
# programs of scenarios/firmware and tests/neuron_fw are built with `npusim cc --platform
# neuron-gpsimd` (fixtures), run, and compared with the step versions of the same scenarios.
# Label: firmware.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
set(fw_work ${CMAKE_CURRENT_BINARY_DIR}/firmware_programs)
file(MAKE_DIRECTORY ${fw_work})

# firmware.build_NAME: npusim cc --platform neuron-gpsimd -g -o NAME.elf SOURCE ARGN
function(npusim_fw_program name source)
  add_test(NAME firmware.build_${name}
           COMMAND $<TARGET_FILE:npusim> cc --platform neuron-gpsimd -g -o ${fw_work}/${name}.elf ${source} ${ARGN})
  set_tests_properties(firmware.build_${name} PROPERTIES FIXTURES_SETUP fw_${name} LABELS firmware)
endfunction()

# firmware.TEST: one command's exit code and output (run_cli.cmake) in the work folder.
function(npusim_fw_cli test program rc regex)
  string(REPLACE ";" "|" args "${ARGN}")
  add_test(NAME firmware.${test}
           COMMAND ${CMAKE_COMMAND} "-DCMD=${args}" -DRC=${rc} "-DREGEX=${regex}"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/run_cli.cmake
           WORKING_DIRECTORY ${fw_work})
  set_tests_properties(firmware.${test} PROPERTIES LABELS firmware FIXTURES_REQUIRED fw_${program})
endfunction()

# The four scenarios as programs: each runs with its own expectations (exit 0), then agrees
# with its step version on every heap block, heap counter, violation, fault and the HBM
# stack's high-water mark (compare_steps.py).
foreach(s default stack_overflow dma_window_straddle dataram_fragmentation)
  npusim_fw_program(${s} ${PROJECT_SOURCE_DIR}/scenarios/firmware/${s}.c)
  configure_file(${PROJECT_SOURCE_DIR}/scenarios/firmware/${s}.yaml ${fw_work}/${s}.yaml COPYONLY)
  npusim_fw_cli(run_${s} ${s} 0 "result: PASS" $<TARGET_FILE:npusim> run ${s}.yaml)
  add_test(NAME firmware.same_as_steps_${s}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/neuron_fw/compare_steps.py
                   $<TARGET_FILE:npusim> ${fw_work}/compare_${s} ${PROJECT_SOURCE_DIR}/scenarios/${s}.yaml
                   ${fw_work}/${s}.yaml)
  set_tests_properties(firmware.same_as_steps_${s} PROPERTIES LABELS firmware FIXTURES_REQUIRED fw_${s})
endforeach()

# A stack overflow names the function, the bytes over and the call chain; the outputs stay
# complete (the scenario expects the overflow: exit 0).
npusim_fw_cli(overflow_message stack_overflow 0
              "FAULT \\(stack overflow\\).*stack overflow in im2col \\(pc 0x[0-9a-f]+, stack_overflow\\.c:[0-9]+\\): its frame takes sp to 0x[0-9a-f]+, [0-9]+ bytes past the end of the HBM stack \\[0x[0-9a-f]+, 0x[0-9a-f]+\\) of 12 KiB; call chain: .*main > run_main > block > conv > im2col"
              $<TARGET_FILE:npusim> run stack_overflow.yaml --report overflow.report.json --trace overflow.trace.json
              --html overflow.html)
add_test(NAME firmware.overflow_outputs_complete
         COMMAND ${Python3_EXECUTABLE} -c "import json,sys; [json.load(open(f)) for f in sys.argv[1:]]; print('ok')"
                 ${fw_work}/overflow.report.json ${fw_work}/overflow.trace.json)
set_tests_properties(firmware.overflow_outputs_complete PROPERTIES DEPENDS firmware.overflow_message
                     LABELS firmware PASS_REGULAR_EXPRESSION "^ok")

# A DMA window violation under the abort policy names the function and the source line.
file(WRITE ${fw_work}/dma_abort.yaml
     "name: dma-abort\nplatform: neuron-gpsimd\npolicies: {dma_window: abort}\nbinary: {elf: dma_window_straddle.elf}\n")
npusim_fw_cli(dma_abort_names_line dma_window_straddle 1
              "FAULT \\(dma window violation\\).*from main at dma_window_straddle\\.c:[0-9]+ \\(pc 0x[0-9a-f]+\\)"
              $<TARGET_FILE:npusim> run dma_abort.yaml)

# A heap that corrupts its own list ends with a clear fault or the cycle budget.
npusim_fw_program(corrupt_heap ${CMAKE_CURRENT_SOURCE_DIR}/neuron_fw/corrupt_heap.c)
file(WRITE ${fw_work}/corrupt_loop.yaml
     "name: corrupt-loop\nplatform: neuron-gpsimd\nbinary: {elf: corrupt_heap.elf, args: [loop], max_cycles: 200000}\n")
npusim_fw_cli(corrupt_heap_loop corrupt_heap 1
              "FAULT \\(cycle budget\\).*still running after 200000 cycles"
              $<TARGET_FILE:npusim> run corrupt_loop.yaml --report corrupt_loop.report.json --html corrupt_loop.html)
file(WRITE ${fw_work}/corrupt_unmapped.yaml
     "name: corrupt-unmapped\nplatform: neuron-gpsimd\nbinary: {elf: corrupt_heap.elf, args: [unmapped]}\n")
npusim_fw_cli(corrupt_heap_unmapped corrupt_heap 1
              "FAULT \\(bus error\\).*in xmem_heap_alloc: load of 4 bytes at 0x4000000[0-9a-f]: no memory at this address.* at xmem_heap\\.c:[0-9]+; call chain: main > neuron_dataram_allocate > xmem_heap_alloc"
              $<TARGET_FILE:npusim> run corrupt_unmapped.yaml --report corrupt_unmapped.report.json)

# Input that is not a firmware program: one line naming it, exit 2.
file(WRITE ${fw_work}/snitch_elf.yaml "name: snitch-elf\nplatform: neuron-gpsimd\nbinary: {elf: /bin/true}\n")
npusim_fw_cli(not_rv32 default 2 "/bin/true: a 64-bit x86-64 ELF file" $<TARGET_FILE:npusim> run snitch_elf.yaml)
file(WRITE ${fw_work}/steps_and_binary.yaml
     "name: both\nplatform: neuron-gpsimd\nbinary: {elf: default.elf}\nprogram:\n  - init: [hbm]\n")
npusim_fw_cli(steps_and_binary default 2 "steps_and_binary\\.yaml:.*one of program \\(steps\\), binary"
              $<TARGET_FILE:npusim> run steps_and_binary.yaml)
