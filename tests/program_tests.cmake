# RV32 programs on the snitch-cluster platform (docs/snitch-programs.md): each program of
# tests/programs is built with `npusim cc` (a fixture), then scenarios run it; their
# expectations (exit code, printed lines, stall cycles, memory) decide. Label: program.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
set(prog_work ${CMAKE_CURRENT_BINARY_DIR}/programs)
file(MAKE_DIRECTORY ${prog_work})
set(prog_src ${PROJECT_SOURCE_DIR}/tests/programs)

# program.build_NAME: npusim cc -o programs/NAME.elf tests/programs/SOURCE ARGN
function(npusim_program name source)
  add_test(NAME program.build_${name}
           COMMAND $<TARGET_FILE:npusim> cc -g -o ${prog_work}/${name}.elf ${prog_src}/${source} ${ARGN})
  set_tests_properties(program.build_${name} PROPERTIES FIXTURES_SETUP program_${name} LABELS program)
endfunction()

# program.TEST: npusim run of tests/programs/SCENARIO (copied beside the ELF files), exit 0.
function(npusim_program_run test scenario program)
  configure_file(${prog_src}/${scenario} ${prog_work}/${scenario} COPYONLY)
  add_test(NAME program.${test}
           COMMAND $<TARGET_FILE:npusim> run ${prog_work}/${scenario} --report ${prog_work}/${test}.report.json
                   --trace ${prog_work}/${test}.trace.json)
  set_tests_properties(program.${test} PROPERTIES FIXTURES_REQUIRED program_${program} LABELS program)
endfunction()

# program.TEST: one command's exit code and output (run_cli.cmake); ARGN is the command.
function(npusim_program_cli test program rc regex)
  string(REPLACE ";" "|" args "${ARGN}")
  add_test(NAME program.${test}
           COMMAND ${CMAKE_COMMAND} "-DCMD=${args}" -DRC=${rc} "-DREGEX=${regex}"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/run_cli.cmake
           WORKING_DIRECTORY ${prog_work})
  set_tests_properties(program.${test} PROPERTIES LABELS program)
  if(program)
    set_tests_properties(program.${test} PROPERTIES FIXTURES_REQUIRED program_${program})
  endif()
endfunction()

foreach(p hello mul_timing load_latency bank_conflicts barrier dma_tiling matmul faults)
  npusim_program(${p} ${p}.c)
endforeach()

npusim_program_run(hello hello.yaml hello)
npusim_program_run(mul_timing mul_timing.yaml mul_timing)
npusim_program_run(load_latency load_latency.yaml load_latency)
npusim_program_run(bank_same bank_same.yaml bank_conflicts)
npusim_program_run(bank_spread bank_spread.yaml bank_conflicts)
npusim_program_run(barrier barrier.yaml barrier)
npusim_program_run(dma_tiling dma_tiling.yaml dma_tiling)

# The matrix product checked on the host: matmul_c in L3 against C = A * B computed here.
add_test(NAME program.matmul_host_check
         COMMAND ${Python3_EXECUTABLE} ${prog_src}/host_check.py $<TARGET_FILE:npusim> ${prog_work})
set_tests_properties(program.matmul_host_check PROPERTIES FIXTURES_REQUIRED program_matmul LABELS program)

# alloc_v2 as code against the exact model: cc_tests.cmake (cc.run_alloc_trace).

# Faults end the run, never npusim: exit 1, the core, PC, instruction and function named.
set(fault_cases
    "illegal|illegal instruction on c0_core0 at pc 0x[0-9a-f]+ in do_fault: 0xffffffff is not an RV32IMAFD instruction"
    "misaligned|misaligned access on c0_core0 at pc 0x[0-9a-f]+ in do_fault: load of 4 bytes at 0x10000002 \\(lw "
    "unmapped|bus error on c0_core0 at pc 0x[0-9a-f]+ in do_fault: load of 4 bytes at 0x50000000: no memory at this address"
    "ebreak|ebreak on c0_core0 at pc 0x[0-9a-f]+ in do_fault"
    "spin|cycle budget on c0_core0 at pc 0x[0-9a-f]+ in do_fault: still running after 200000 cycles"
    "ssr|unsupported instruction on c0_core0 at pc 0x[0-9a-f]+ in do_fault: .*SSR"
    "frep|unsupported instruction on c0_core0 at pc 0x[0-9a-f]+ in do_fault: .*FREP"
    "dma|illegal instruction on c0_core0 at pc 0x[0-9a-f]+ in do_fault: dmsrc: only the DM core drives")
foreach(c IN LISTS fault_cases)
  string(REPLACE "|" ";" parts "${c}")
  list(GET parts 0 what)
  list(GET parts 1 regex)
  file(WRITE ${prog_work}/fault_${what}.yaml
       "name: fault-${what}\nplatform: snitch-cluster\nbinary: {elf: faults.elf, args: [${what}], max_cycles: 200000}\n")
  npusim_program_cli(fault_${what} faults 1 "${regex}"
                     $<TARGET_FILE:npusim> run fault_${what}.yaml --report fault_${what}.report.json
                     --trace fault_${what}.trace.json)
endforeach()
# Every output of a faulting run is complete: the report and the trace are valid JSON.
add_test(NAME program.fault_outputs_complete
         COMMAND ${Python3_EXECUTABLE} -c "import json,sys; [json.load(open(f)) for f in sys.argv[1:]]; print('ok')"
                 ${prog_work}/fault_illegal.report.json ${prog_work}/fault_illegal.trace.json
                 ${prog_work}/fault_spin.report.json ${prog_work}/fault_spin.trace.json)
set_tests_properties(program.fault_outputs_complete PROPERTIES DEPENDS "program.fault_illegal;program.fault_spin"
                     LABELS program PASS_REGULAR_EXPRESSION "^ok")

# A file that is not an RV32 program: one line naming it and why, exit 2.
file(WRITE ${prog_work}/not_elf.yaml "name: not-elf\nplatform: snitch-cluster\nbinary: {elf: not_elf.yaml}\n")
npusim_program_cli(elf_not_elf "" 2 "npusim: error: .*not_elf\\.yaml.*not an ELF file"
                   $<TARGET_FILE:npusim> run not_elf.yaml)
file(WRITE ${prog_work}/host_elf.yaml "name: host-elf\nplatform: snitch-cluster\nbinary: {elf: /bin/true}\n")
npusim_program_cli(elf_x86 "" 2 "/bin/true: a 64-bit x86-64 ELF file; the core runs RV32 programs"
                   $<TARGET_FILE:npusim> run host_elf.yaml)
file(WRITE ${prog_work}/missing_elf.yaml "name: missing-elf\nplatform: snitch-cluster\nbinary: {elf: nope.elf}\n")
npusim_program_cli(elf_missing "" 2 "nope\\.elf: no such file" $<TARGET_FILE:npusim> run missing_elf.yaml)
file(WRITE ${prog_work}/bad_core.yaml
     "name: bad-core\nplatform: snitch-cluster\nbinary: {elf: hello.elf, on: c0_core9}\n")
npusim_program_cli(bad_core hello 2 "'c0_core9' names no core" $<TARGET_FILE:npusim> run bad_core.yaml)
