// npusim's start-up code for firmware programs on the neuron-gpsimd management core
// (docs/neuron-programs.md). The core starts at _start with a0 = argc, a1 = argv and all other
// registers zero. This code sets gp and sp (sp = NPUSIM_LOCAL_STACK_TOP: the local stack is
// [TOP - NPUSIM_LOCAL_STACK_BYTES, TOP) in dataram), zeroes .sbss/.bss and the allocators'
// state (.allocator_bss), runs the C++ constructors, calls main(argc, argv) and writes main's
// return value to the host interface's EXIT register, which stops the core.

#define HOST_EXIT_OFFSET 0x08

    .section .text.init, "ax", @progbits
    .globl _start
    .type _start, @function
_start:
    .option push
    .option norelax
    la      gp, __global_pointer$
    .option pop
    li      sp, NPUSIM_LOCAL_STACK_TOP
    mv      s0, a0                      // argc
    mv      s1, a1                      // argv

    la      t0, __bss_start
    la      t1, __bss_end
1:  bgeu    t0, t1, 2f
    sw      zero, 0(t0)
    addi    t0, t0, 4
    j       1b
2:  la      t0, __allocator_bss_start
    la      t1, __allocator_bss_end
3:  bgeu    t0, t1, 4f
    sw      zero, 0(t0)
    addi    t0, t0, 4
    j       3b
4:  la      s2, __init_array_start
    la      s3, __init_array_end
5:  bgeu    s2, s3, 6f
    lw      t0, 0(s2)
    jalr    t0
    addi    s2, s2, 4
    j       5b
6:  mv      a0, s0
    mv      a1, s1
    li      s0, 0                       // no frame above main
    call    main
    li      t0, NPUSIM_HOST_BASE
    sw      a0, HOST_EXIT_OFFSET(t0)
7:  j       7b
    .size _start, . - _start
