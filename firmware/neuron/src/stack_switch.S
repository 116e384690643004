// switchStack / switchStackBack of the Neuron device library: the running stack moves between
// the core's local stack [NPUSIM_LOCAL_STACK_TOP - NPUSIM_LOCAL_STACK_BYTES, TOP) and the HBM
// stack [__neuron_hbm_stack_lo, __neuron_hbm_stack_hi) (stack_switch.c).
//
// The move MIGRATES the live stack: the words [sp, from_top) are copied to
// [to_top - used, to_top), the new stack's bounds go to the host interface (STACK_LO, then
// STACK_HI, which arms the simulator's guard), and sp moves by to_top - from_top. s0 moves too
// when it points into the copied range. Built without optimisation, s0 is the frame pointer of
// a chain of frame records (saved s0 at fp - 8), and the saved frame pointers in the copy are
// moved as well, so every caller's frame keeps working. The function itself keeps only ra in
// a frame of its own, which moves with the rest.

#define HOST_STACK_LO_OFFSET 0x10
#define HOST_STACK_HI_OFFSET 0x14

// MIGRATE(from_top, to_lo, to_top): a0 = from_top, a1 = to_lo, a2 = to_top; a3 = to_hbm flag.
// Uses t0-t6, a4, a5.
    .text
    .p2align 2
    .type __neuron_migrate, @function
__neuron_migrate:
    sub     t1, a0, sp                  // used bytes
    sub     t2, a2, a1                  // room
    bgtu    t1, t2, 9f
    sub     t3, a2, t1                  // new sp
    mv      t4, sp
    mv      t5, t3
1:  bgeu    t4, a0, 2f                  // copy [sp, from_top) word by word
    lw      t6, 0(t4)
    sw      t6, 0(t5)
    addi    t4, t4, 4
    addi    t5, t5, 4
    j       1b
2:  sub     t0, t3, sp                  // delta
    // s0 into the copied range [sp, from_top]: move it (and, unoptimised, the frame chain).
    bltu    s0, sp, 4f
    bgtu    s0, a0, 4f
#ifndef __OPTIMIZE__
    mv      a4, s0                      // old frame pointer
3:  lw      a5, -8(a4)                  // the caller's saved frame pointer, in the old stack
    bleu    a5, a4, 31f                 // the chain only goes up ...
    bgtu    a5, a0, 31f                 // ... and stays in the copied range
    add     t6, a5, t0
    add     t4, a4, t0
    sw      t6, -8(t4)                  // rewrite it in the copy
    mv      a4, a5
    j       3b
31:
#endif
    add     s0, s0, t0
4:  li      t4, NPUSIM_HOST_BASE
    sw      a1, HOST_STACK_LO_OFFSET(t4)
    sw      a2, HOST_STACK_HI_OFFSET(t4)
    add     sp, sp, t0
    ret
9:  mv      a0, t1
    mv      a1, t2
    mv      a2, a3
    tail    __neuron_switch_too_big
    .size __neuron_migrate, . - __neuron_migrate

    .globl switchStack
    .type switchStack, @function
switchStack:
    addi    sp, sp, -16
    sw      ra, 12(sp)
    call    __neuron_switch_check
    beqz    a0, 1f
    li      a0, NPUSIM_LOCAL_STACK_TOP
    lui     t0, %hi(__neuron_hbm_stack_lo)
    lw      a1, %lo(__neuron_hbm_stack_lo)(t0)
    lui     t0, %hi(__neuron_hbm_stack_hi)
    lw      a2, %lo(__neuron_hbm_stack_hi)(t0)
    li      a3, 1
    call    __neuron_migrate
    lui     t0, %hi(__neuron_stack_switched)
    li      t1, 1
    sw      t1, %lo(__neuron_stack_switched)(t0)
1:  lw      ra, 12(sp)
    addi    sp, sp, 16
    ret
    .size switchStack, . - switchStack

    .globl switchStackBack
    .type switchStackBack, @function
switchStackBack:
    lui     t0, %hi(__neuron_stack_switched)
    lw      t1, %lo(__neuron_stack_switched)(t0)
    beqz    t1, 1f
    addi    sp, sp, -16
    sw      ra, 12(sp)
    lui     t0, %hi(__neuron_hbm_stack_hi)
    lw      a0, %lo(__neuron_hbm_stack_hi)(t0)
    li      a1, NPUSIM_LOCAL_STACK_TOP - NPUSIM_LOCAL_STACK_BYTES
    li      a2, NPUSIM_LOCAL_STACK_TOP
    li      a3, 0
    call    __neuron_migrate
    lui     t0, %hi(__neuron_stack_switched)
    sw      zero, %lo(__neuron_stack_switched)(t0)
    lw      ra, 12(sp)
    addi    sp, sp, 16
1:  ret
    .size switchStackBack, . - switchStackBack
