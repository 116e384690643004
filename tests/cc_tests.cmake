# `npusim cc` (docs/snitch-programs.md): programs build into RV32 ELF files that keep the
# runtime's contract (tests/cc/check_elf.py reads them), and bad input ends with exit code 2
# and a message naming it.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
set(cc_work ${CMAKE_CURRENT_BINARY_DIR}/cc)

# check_elf.py MODE SOURCE [npusim cc args]: builds SOURCE into its own folder and checks the ELF.
function(npusim_cc_elf_test name mode source)
  add_test(NAME cc.${name}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cc/check_elf.py $<TARGET_FILE:npusim>
                   ${cc_work}/${name} ${mode} ${source} ${ARGN}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(cc.${name} PROPERTIES LABELS cc)
endfunction()

# The runtime is built with -Wall -Wextra -Werror inside every build: these fail if it warns.
npusim_cc_elf_test(hello_O0 program tests/programs/hello.c -O0)
npusim_cc_elf_test(hello_O2 program tests/programs/hello.c -O2)
# -Oz: clang calls helpers for 64-bit shifts too (__ashldi3 & co.).
npusim_cc_elf_test(printf_Oz program tests/programs/printf_formats.c -Oz)
npusim_cc_elf_test(hello_O3_g_flags program tests/programs/hello.c -O3 -g -DGREETING=1 -I tests/programs -Wall -Werror)
foreach(p alloc_trace barrier matmul dma_tiling mul_chain mul_independent printf_formats
          int64_conversions)
  npusim_cc_elf_test(program_${p} program tests/programs/${p}.c)
endforeach()
# Two clusters: the start-up code's boot flag for the other clusters is assembled in.
npusim_cc_elf_test(hello_two_clusters program tests/programs/hello.c --set cluster.clusters=2)
npusim_cc_elf_test(cpp program tests/cc/hello_cpp.cpp --std=c++17)
# The runtime's objects are compiled once and then taken from npusim cc's cache.
add_test(NAME cc.runtime_cache
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cc/cache_check.py $<TARGET_FILE:npusim>
                 ${cc_work}/runtime_cache tests/programs/hello.c
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cc.runtime_cache PROPERTIES LABELS cc PASS_REGULAR_EXPRESSION "^ok:"
                     ENVIRONMENT "NPUSIM_SNRT_SOURCE=${PROJECT_SOURCE_DIR}/firmware/snrt")
npusim_cc_elf_test(xdma_encodings xdma tests/cc/xdma.c)
# 64 bytes of TLS need more than the default runtime.tls_size: --set reaches the link script.
npusim_cc_elf_test(tls_size_set program tests/cc/big_tls.c --set runtime.tls_size=128)

# Exit code and message of one npusim cc command line (run_cli.cmake); ARGN is the command.
function(npusim_cc_cli_test name rc regex)
  string(REPLACE ";" "|" args "${ARGN}")
  add_test(NAME cc.${name}
           COMMAND ${CMAKE_COMMAND} "-DCMD=${args}" -DRC=${rc} "-DREGEX=${regex}"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/run_cli.cmake
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(cc.${name} PROPERTIES LABELS cc)
endfunction()
set(npusim $<TARGET_FILE:npusim>)
set(out ${cc_work}/errors/x.elf)
file(MAKE_DIRECTORY ${cc_work}/errors)

npusim_cc_cli_test(missing_source 2 "npusim: error: cc: nope\\.c: the source file does not exist"
                   ${npusim} cc -o ${out} nope.c)
npusim_cc_cli_test(not_a_source 2 "tests/cc/check_elf\\.py: not a source npusim cc builds"
                   ${npusim} cc -o ${out} tests/cc/check_elf.py)
npusim_cc_cli_test(unknown_platform 2 "nope-cluster: no such platform"
                   ${npusim} cc --platform nope-cluster -o ${out} tests/programs/hello.c)
npusim_cc_cli_test(scenario_is_no_platform 2 "default\\.yaml"
                   ${npusim} cc --platform scenarios/default.yaml -o ${out} tests/programs/hello.c)
npusim_cc_cli_test(bad_set 2 "--set: .*runtime\\.tls_size=lots"
                   ${npusim} cc --set runtime.tls_size=lots -o ${out} tests/programs/hello.c)
npusim_cc_cli_test(host_interface_in_tcdm 2 "host interface at 0x1002f000 lies inside cluster 0's TCDM"
                   ${npusim} cc --set tcdm.size=256KiB -o ${out} tests/programs/hello.c)
npusim_cc_cli_test(bad_opt_level 2 "-O9: expected -O0, -O1, -O2, -O3, -Os or -Oz"
                   ${npusim} cc -O9 -o ${out} tests/programs/hello.c)
npusim_cc_cli_test(compile_error 2 "use of undeclared identifier 'undeclared_name'.*tests/cc/bad_syntax\\.c: does not compile \\(clang-14 exit status 1"
                   ${npusim} cc -o ${out} tests/cc/bad_syntax.c)
npusim_cc_cli_test(tls_too_big 2 "exceeds runtime\\.tls_size \\(64 bytes\\).*does not link \\(ld\\.lld-14"
                   ${npusim} cc -o ${out} tests/cc/big_tls.c)
npusim_cc_cli_test(output_unwritable 2 "npusim: error: cc: -o: .*/nonexistent/dir/x\\.elf"
                   ${npusim} cc -o /nonexistent/dir/x.elf tests/programs/hello.c)
# -o naming a source: checked on a copy, so that a failure cannot overwrite the repository's file.
configure_file(${PROJECT_SOURCE_DIR}/tests/programs/hello.c ${cc_work}/errors/hello_copy.c COPYONLY)
npusim_cc_cli_test(output_is_source 2 "-o: the same file as the input source"
                   ${npusim} cc -o ${cc_work}/errors/hello_copy.c ${cc_work}/errors/hello_copy.c)
# The profile's numbers (after --set) are the program's macros.
npusim_cc_cli_test(macros_from_profile 0 "-DSNRT_CLUSTER_NUM=2 -DSNRT_CLUSTER_CORE_NUM=5 -DSNRT_CLUSTER_COMPUTE_CORE_NUM=4 -DSNRT_TCDM_START_ADDR=0x10000000 -DSNRT_TCDM_SIZE=0x20000 -DSNRT_CLUSTER_OFFSET=0x40000 -DSNRT_CLS_SIZE=64 -DSNRT_LOG2_STACK_SIZE=11 -DSNRT_TLS_SIZE=64 -DSNRT_L3_START_ADDR=0x80000000 -DSNRT_L3_END_ADDR=0x100000000 -DNPUSIM_HOST_BASE=0x1002f000"
                   ${npusim} cc -v --set cluster.clusters=2 --set cluster.compute_cores=4
                   --set runtime.log2_stack_size=11 -o ${cc_work}/errors/macros.elf tests/programs/hello.c)
# The tools missing: no clang-14, then clang-14 but no ld.lld-14.
find_program(NPUSIM_CLANG14 clang-14)
if(NPUSIM_CLANG14)
  file(MAKE_DIRECTORY ${cc_work}/clang_only)
  file(CREATE_LINK ${NPUSIM_CLANG14} ${cc_work}/clang_only/clang-14 SYMBOLIC)
  npusim_cc_cli_test(no_clang 2 "clang-14 is not installed \\(not found in PATH\\): install the Debian package clang-14"
                     ${CMAKE_COMMAND} -E env PATH=${cc_work}/nothing ${npusim} cc -o ${out} tests/programs/hello.c)
  npusim_cc_cli_test(no_lld 2 "ld\\.lld-14 is not installed \\(not found in PATH\\): install the Debian package lld-14"
                     ${CMAKE_COMMAND} -E env PATH=${cc_work}/clang_only ${npusim} cc -o ${out} tests/programs/hello.c)
endif()

# The programs on the simulated cluster (npusim run, binary:), against an independent reference:
# alloc_trace's addresses on all 9 cores against the exact C++ model (npusim heap replay), traps
# included; printf and the 64-bit conversions against glibc's and gcc's results.
function(npusim_cc_run_test name)
  add_test(NAME cc.${name}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cc/run_programs.py $<TARGET_FILE:npusim>
                   ${cc_work}/${name} ${ARGN}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(cc.${name} PROPERTIES LABELS cc)
endfunction()
npusim_cc_run_test(run_alloc_trace alloc)
npusim_cc_run_test(run_printf_formats expected printf_formats)
npusim_cc_run_test(run_int64_conversions expected int64_conversions)

# Firmware programs on the neuron-gpsimd management core (docs/neuron-programs.md): the Neuron
# device library builds with -Wall -Wextra -Werror at every level, from C and C++; its state
# lies at heaps.data_scratch + heaps.bss_offset; a program's own xmem_heap.c replaces the
# library's (tests/neuron_fw/check_neuron_elf.py).
function(npusim_neuron_elf_test name mode)
  add_test(NAME cc.neuron_${name}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/neuron_fw/check_neuron_elf.py
                   $<TARGET_FILE:npusim> ${cc_work}/neuron_${name} ${mode} ${ARGN}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(cc.neuron_${name} PROPERTIES LABELS cc)
endfunction()
foreach(level O0 O2 Oz)
  npusim_neuron_elf_test(library_${level} program tests/neuron_fw/firmware_main.c -- -${level})
endforeach()
npusim_neuron_elf_test(cpp program tests/neuron_fw/firmware_main.cpp -- --std=c++17 -Wall -Wextra -Werror)
# C++ firmware declaring the functions itself (no extern "C") links against their C++ names.
npusim_neuron_elf_test(cpp_own_declarations program tests/neuron_fw/mangled.cpp -- --std=c++17)
npusim_neuron_elf_test(bss_offset_set program --bss 0x80200 tests/neuron_fw/firmware_main.c
                       -- --set heaps.bss_offset=0x200)
npusim_neuron_elf_test(image_set program --image 0x200000:0x40000 tests/neuron_fw/firmware_main.c
                       -- --set firmware.image_base=0x200000 --set firmware.image_size=256KiB)
npusim_neuron_elf_test(user_xmem_heap user_xmem tests/neuron_fw/firmware_main.c
                       tests/neuron_fw/user_xmem/xmem_heap.c -- -O0 -Wall -Werror)
npusim_cc_cli_test(neuron_bad_method 2 "--set: expected c_memcpy, vec_memcpy or dma \\(at 'firmware\\.method=fast'\\)"
                   ${npusim} cc --platform neuron-gpsimd --set firmware.method=fast -o ${out} tests/neuron_fw/firmware_main.c)
npusim_cc_cli_test(neuron_bss_unaligned 2 "heaps\\.bss_offset = 0x80302 is not 4-byte aligned"
                   ${npusim} cc --platform neuron-gpsimd --set heaps.bss_offset=0x302 -o ${out} tests/neuron_fw/firmware_main.c)
npusim_cc_cli_test(neuron_bss_beyond_dataram 2 "allocators' state \\[0x8ff00, 0x90024\\) ends beyond the dataram"
                   ${npusim} cc --platform neuron-gpsimd --set heaps.bss_offset=0xff00 -o ${out} tests/neuron_fw/firmware_main.c)
npusim_cc_cli_test(neuron_image_on_dataram 2 "firmware image \\[0x80000, 0x180000\\) overlaps the dataram"
                   ${npusim} cc --platform neuron-gpsimd --set firmware.image_base=0x80000 -o ${out} tests/neuron_fw/firmware_main.c)
npusim_cc_cli_test(neuron_image_on_host_interface 2 "overlaps npusim's host interface and DMA registers at 0x1002f000"
                   ${npusim} cc --platform neuron-gpsimd --set firmware.image_base=0x10000000 -o ${out} tests/neuron_fw/firmware_main.c)
npusim_cc_cli_test(neuron_image_empty 2 "firmware image must be non-empty .*firmware\\.image_size=0"
                   ${npusim} cc --platform neuron-gpsimd --set firmware.image_size=0 -o ${out} tests/neuron_fw/firmware_main.c)
npusim_cc_cli_test(neuron_dir_env_wrong 2 "NPUSIM_NEURON_DIR=/nonexistent: not npusim's Neuron device library \\(firmware/neuron\\) folder"
                   ${CMAKE_COMMAND} -E env NPUSIM_NEURON_DIR=/nonexistent
                   ${npusim} cc --platform neuron-gpsimd -o ${out} tests/neuron_fw/firmware_main.c)
# The Neuron profile's numbers (after --set) are the program's macros.
npusim_cc_cli_test(neuron_macros_from_profile 0 "-DNPUSIM_HOST_BASE=0x1002f000 -DNPUSIM_DMA_BASE=0x1002f100 -DNPUSIM_DATA_SCRATCH=0x80000 -DNPUSIM_DATARAM_SIZE=0x10000 -DNPUSIM_BSS_OFFSET=0x300 -DNPUSIM_HBM_SCRATCH=0x100000000ull -DNPUSIM_HBM_SCRATCH_SIZE=0x4000000 -DNPUSIM_HBM_WINDOW=0x80000000 -DNPUSIM_HBM_POOL_OFFSET=0x228 -DNPUSIM_HBM_HEADER_OFFSET=0x0 -DNPUSIM_DATARAM_POOL_OFFSET=0x42c -DNPUSIM_DATARAM_POOL_SIZE=0x4000 -DNPUSIM_DATARAM_HEADER_OFFSET=0x3200 -DNPUSIM_LIBC_POOL_OFFSET=0x4500 -DNPUSIM_LIBC_POOL_SIZE=0x8000 -DNPUSIM_LIBC_HEADER_OFFSET=0xc500 -DNPUSIM_NUM_BLOCKS=32 -DNPUSIM_LOCAL_STACK_TOP=0x90000 -DNPUSIM_LOCAL_STACK_BYTES=0x3800 -DNPUSIM_DMA_CHANNEL=1 -DNPUSIM_DMA_CHANNELS=4 -DNPUSIM_TRANSFER_METHOD=1 -DNPUSIM_DOUBLE_BUFFER=1 -DNPUSIM_VECTOR_BYTES=64"
                   ${npusim} cc -v --platform neuron-gpsimd --set firmware.method=vec_memcpy --set firmware.double_buffer=true
                   --set firmware.dma_channel=1 -o ${cc_work}/errors/neuron_macros.elf tests/neuron_fw/firmware_main.c)

# The C xmem heap of the Neuron device library equals the exact C++ model op for op
# (tests/neuron_fw/xmem_exact.py): every xmem trace of the repository and seeded random traces,
# run as a program on the snitch-cluster platform (xmem is platform-independent; its pool,
# header and manager in L3) against `npusim heap replay` with the same addresses.
function(npusim_xmem_exact_test name trace)
  add_test(NAME cc.xmem_exact_${name}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/neuron_fw/xmem_exact.py
                   $<TARGET_FILE:npusim> ${cc_work}/xmem_exact_${name} ${trace} ${ARGN}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(cc.xmem_exact_${name} PROPERTIES LABELS cc)
endfunction()
npusim_xmem_exact_test(quirks scenarios/heap/xmem_quirks.ops
                       --pool-base 0x90000001 --pool-size 0x1000 --trace-base 0x10000001)
npusim_xmem_exact_test(descriptor_exhaustion scenarios/heap/descriptor_exhaustion.ops
                       --pool-size 0x1000 --blocks 8 --trace-base 0x10000000)
npusim_xmem_exact_test(dataram_mixed scenarios/heap/dataram_mixed.ops
                       --pool-base 0x9000042c --pool-size 0x4000 --trace-base 0x8042c --align0 64)
npusim_xmem_exact_test(random_1 random:1)
npusim_xmem_exact_test(random_2_odd_base random:2 --pool-base 0x90000005 --pool-size 0x3001 --blocks 40)
npusim_xmem_exact_test(random_3_few_blocks random:3 --pool-size 0x2000 --blocks 8)
npusim_xmem_exact_test(random_4_no_header random:4 --header none)
# The same on the neuron-gpsimd management core: xmem in the HBM window and the
# dataram, and the device library's three wrappers against heap replay's Neuron allocators.
npusim_xmem_exact_test(neuron_quirks scenarios/heap/xmem_quirks.ops --platform neuron-gpsimd
                       --pool-base 0x80000001 --pool-size 0x1000 --trace-base 0x10000001)
npusim_xmem_exact_test(neuron_descriptor_exhaustion scenarios/heap/descriptor_exhaustion.ops --platform neuron-gpsimd
                       --pool-base 0x80000000 --pool-size 0x1000 --blocks 8 --trace-base 0x10000000)
npusim_xmem_exact_test(neuron_xmem_dataram_mixed scenarios/heap/dataram_mixed.ops --platform neuron-gpsimd
                       --pool-base 0x8042c --pool-size 0x4000 --trace-base 0x8042c --align0 64)
npusim_xmem_exact_test(neuron_random_window random:5 --platform neuron-gpsimd --pool-base 0x80000000 --pool-size 0x8000)
npusim_xmem_exact_test(neuron_dataram_mixed scenarios/heap/dataram_mixed.ops --platform neuron-gpsimd
                       --allocator neuron-dataram)
foreach(heap hbm dataram libc)
  npusim_xmem_exact_test(neuron_${heap}_random random:7 --platform neuron-gpsimd --allocator neuron-${heap})
endforeach()
# The check finds a heap that differs: the library's heap with the split rule off by one.
file(READ ${PROJECT_SOURCE_DIR}/firmware/neuron/src/xmem_heap.c xmem_src)
string(REPLACE "csize - need > XMEM_HEAP_MIN_ALLOC_SIZE" "csize - need >= XMEM_HEAP_MIN_ALLOC_SIZE"
       xmem_off_by_one "${xmem_src}")
if(xmem_off_by_one STREQUAL xmem_src)
  message(FATAL_ERROR "tests/cc_tests.cmake: the split rule of firmware/neuron/src/xmem_heap.c changed: update the mutation")
endif()
file(WRITE ${cc_work}/xmem_off_by_one/xmem_heap.c "${xmem_off_by_one}")
npusim_xmem_exact_test(finds_a_changed_heap random:1 --xmem ${cc_work}/xmem_off_by_one/xmem_heap.c)
set_tests_properties(cc.xmem_exact_finds_a_changed_heap PROPERTIES
                     PASS_REGULAR_EXPRESSION "FAIL: random:1:[0-9]+: free_bytes: the C heap gives [0-9]+, the exact model [0-9]+")

# The Neuron device library running (tests/neuron_fw/run_library.py): tests/neuron_fw/library_cases.c
# on the management core: the stack switch at -O0, -O2 and -Oz, the guard on an
# overflowing HBM stack, the transfer methods, TensorStream's descriptors, the heaps, and the
# fatal errors.
function(npusim_neuron_run_test name case)
  add_test(NAME cc.neuron_run_${name}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/neuron_fw/run_library.py
                   $<TARGET_FILE:npusim> ${cc_work}/neuron_run_${name} ${case} ${ARGN}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(cc.neuron_run_${name} PROPERTIES LABELS cc)
endfunction()
foreach(level O0 O2 Oz)
  npusim_neuron_run_test(stack_switch_${level} stack -${level})
endforeach()
npusim_neuron_run_test(stack_overflow overflow -O2)
npusim_neuron_run_test(transfer_O0 transfer -O0)
npusim_neuron_run_test(transfer_O2 transfer -O2)
npusim_neuron_run_test(stream_single stream:single)
npusim_neuron_run_test(stream_double stream:double --set firmware.double_buffer=true)
npusim_neuron_run_test(stream_double_one_channel stream:single --set firmware.double_buffer=true --set dma.channels=1)
npusim_neuron_run_test(heaps heap -O2)
npusim_neuron_run_test(switch_without_stack
  "fatal:5:switchStack: no HBM stack was allocated (call allocate_hbm_stack first)")
npusim_neuron_run_test(stack_too_large
  "fatal:6:allocate_hbm_stack: stack size 4194305 exceeds MAX_STACK_SIZE 0x400000 (4 MiB)")
npusim_neuron_run_test(second_stack
  "fatal:7:allocate_hbm_stack: an HBM stack is already allocated at 0x100000240")
npusim_neuron_run_test(dram_assertion
  "fatal:8:data_transfer.cpp:160: data_transfer_to_dram: assertion `dram_addr >= 0x80000 && dram_addr < 0x90000' failed (dram_addr = 0x7f000)")
npusim_neuron_run_test(bounce_buffer_failure
  "fatal:9:tensor_stream_copy: the 4096 B bounce buffer could not be allocated from the dataram heap (xmem status -100)")
