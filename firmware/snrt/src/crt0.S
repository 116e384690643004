// npusim's start-up code for RV32 programs on the snitch-cluster platform
// (docs/snitch-programs.md). Every core starts at _start with a0 = argc, a1 = argv and all
// other registers zero. This code:
//   1. sets gp; computes the cluster and core index from mhartid
//      (mhartid = cluster * SNRT_CLUSTER_CORE_NUM + core);
//   2. places the core's stack and TLS block at the top of its cluster's TCDM, below the
//      cluster-local storage (CLS):
//        cls_base     = tcdm_base + SNRT_TCDM_SIZE - SNRT_CLS_SIZE
//        stack_top(i) = cls_base - 8 - i * (2^SNRT_LOG2_STACK_SIZE + 8)
//        tls_base(i)  = align_down(stack_top(i) - SNRT_TLS_SIZE, 8);   tp = sp = tls_base(i)
//   3. copies .tdata into the TLS block and zeroes .tbss;
//   4. runs snrt_l1_init, snrt_l3_init and the runtime's 4-byte barrier-counter allocation;
//   5. on the DM core of cluster 0: zeroes .bss and runs the C++ constructors (then, with more
//      than one cluster, raises the boot flag the other clusters wait for);
//   6. cluster barrier; main(argc, argv); cluster barrier; main's return value to the host
//      interface's EXIT register, which stops the core.
// Only RV32IM instructions (and the barrier's CSR read) are used.

#define STACK_SIZE (1 << SNRT_LOG2_STACK_SIZE)
#define HOST_EXIT_OFFSET 0x08

    .section .text.init, "ax", @progbits
    .globl _start
    .type _start, @function
_start:
    .option push
    .option norelax
    la      gp, __global_pointer$
    .option pop
    mv      s0, a0                      // argc
    mv      s1, a1                      // argv

    // 1. Indices: s2 = cluster, s3 = core in the cluster.
    csrr    t0, mhartid
    li      t1, SNRT_CLUSTER_CORE_NUM
    divu    s2, t0, t1
    remu    s3, t0, t1

    // 2. s4 = this cluster's TCDM base; tp = sp = tls_base(core).
    li      t0, SNRT_CLUSTER_OFFSET
    mul     t0, s2, t0
    li      t1, SNRT_TCDM_START_ADDR
    add     s4, t0, t1
    li      t0, SNRT_TCDM_SIZE - SNRT_CLS_SIZE - 8
    add     t0, s4, t0                  // stack_top(0)
    li      t1, STACK_SIZE + 8
    mul     t1, s3, t1
    sub     t0, t0, t1                  // stack_top(core)
    li      t1, SNRT_TLS_SIZE
    sub     t0, t0, t1
    andi    t0, t0, -8
    mv      tp, t0
    mv      sp, t0

    // 3. TLS: copy .tdata word by word, zero .tbss (the link script aligns both to 8).
    la      t0, __tdata_start
    la      t1, __tdata_end
    mv      t2, tp
1:  bgeu    t0, t1, 2f
    lw      t3, 0(t0)
    sw      t3, 0(t2)
    addi    t0, t0, 4
    addi    t2, t2, 4
    j       1b
2:  la      t0, __tdata_start
    la      t1, __tbss_start
    sub     t1, t1, t0
    add     t2, tp, t1                  // .tbss's place in the block
    la      t0, __tbss_start
    la      t1, __tbss_end
    sub     t1, t1, t0
    add     t1, t2, t1
3:  bgeu    t2, t1, 4f
    sw      zero, 0(t2)
    addi    t2, t2, 4
    j       3b
4:
    // 4. The allocators, and the runtime's own first allocation (a 4-byte barrier counter).
    call    snrt_l1_init
    call    snrt_l3_init
    li      a0, 4
    li      a1, 1
    call    snrt_l1_alloc_cluster_local

    // 5. The DM core of cluster 0 zeroes .bss and runs the constructors.
    bnez    s2, 8f
    li      t0, SNRT_CLUSTER_COMPUTE_CORE_NUM
    bne     s3, t0, 9f
    la      t0, __bss_start
    la      t1, __bss_end
5:  bgeu    t0, t1, 6f
    sw      zero, 0(t0)
    addi    t0, t0, 4
    j       5b
6:  la      s5, __init_array_start
    la      s6, __init_array_end
7:  bgeu    s5, s6, 71f
    lw      t0, 0(s5)
    jalr    t0
    addi    s5, s5, 4
    j       7b
71:
#if SNRT_CLUSTER_NUM > 1
    fence   rw, rw
    la      t0, __npusim_boot_done
    li      t1, 1
    sw      t1, 0(t0)
#endif
    j       9f
8:
#if SNRT_CLUSTER_NUM > 1
    // Other clusters: wait until cluster 0 has zeroed .bss and run the constructors.
    la      t0, __npusim_boot_done
81: lw      t1, 0(t0)
    beqz    t1, 81b
    fence   rw, rw
#endif
9:
    // 6. main between two cluster barriers; its return value is the core's exit code.
    csrr    x0, 0x7c2
    mv      a0, s0
    mv      a1, s1
    call    main
    mv      s0, a0
    csrr    x0, 0x7c2
    li      t0, NPUSIM_HOST_BASE
    sw      s0, HOST_EXIT_OFFSET(t0)
10: j       10b
    .size _start, . - _start

#if SNRT_CLUSTER_NUM > 1
    .section .data, "aw", @progbits
    .p2align 2
__npusim_boot_done:
    .word   0
#endif
