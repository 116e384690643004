// Unicorn 2.0.1 (Debian libunicorn-dev) as a candidate engine for the RV32 program core, timed
// on the loop bench_rv32.cpp uses: free running, with the per-instruction code hook a per-register
// scoreboard needs, and nine engines in cycle lockstep (docs/performance.md, "RV32 program
// cores"). Built only where libunicorn-dev is installed (not a CI dependency):
//   build/bench/unicorn_lockstep
#include <unicorn/unicorn.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
static double now(void){ struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec+t.tv_nsec*1e-9; }
#define ITER 200000
static uint32_t code[] = {
  0x0001e337, /* lui x6, ... set below */ 0,
  0x10000f37, /* lui x30,0x10000 */
  0x000f2383, /* lw x7,0(x30) */
  0x00138393, /* addi x7,x7,1 */
  0x02738433, /* mul x8,x7,x7 */
  0x007f2023, /* sw x7,0(x30) */
  0x008484b3, /* add x9,x9,x8 */
  0xfff30313, /* addi x6,x6,-1 */
  0xfe0314e3, /* bne x6,x0,-24 */
  0x00100073, /* ebreak */
};
static uint64_t hook_count;
static void hook_code(uc_engine* uc, uint64_t addr, uint32_t size, void* u){ (void)uc;(void)addr;(void)size;(void)u; hook_count++; }
static uc_engine* make(void){
  uc_engine* uc; uc_open(UC_ARCH_RISCV, UC_MODE_RISCV32, &uc);
  uc_mem_map(uc, 0x80000000, 0x1000, UC_PROT_ALL);
  uc_mem_map(uc, 0x10000000, 0x20000, UC_PROT_ALL);
  uc_mem_write(uc, 0x80000000, code, sizeof code);
  uint32_t pc = 0x80000000; uc_reg_write(uc, UC_RISCV_REG_PC, &pc);
  return uc;
}
int main(void){
  // x6 = ITER: lui x6, ITER>>12 ; addi x6,x6,ITER&0xfff
  code[0] = ((ITER >> 12) << 12) | (6 << 7) | 0x37;
  code[1] = ((ITER & 0xfff) << 20) | (6 << 15) | (6 << 7) | 0x13;
  const uint64_t instr = 3 + 7ull * ITER;
  // 1. one engine, free running
  uc_engine* uc = make(); double t0 = now(); uc_emu_start(uc, 0x80000000, 0, 0, 0); double t1 = now();
  printf("unicorn free-running:            %6.1f M instr/s\n", instr / (t1 - t0) / 1e6); uc_close(uc);
  // 2. one engine, a code hook on every instruction (what a per-register scoreboard needs)
  uc = make(); uc_hook h; uc_hook_add(uc, &h, UC_HOOK_CODE, (void*)hook_code, NULL, 1, 0);
  t0 = now(); uc_emu_start(uc, 0x80000000, 0, 0, 0); t1 = now();
  printf("unicorn + code hook:             %6.1f M instr/s (%llu hooks)\n", instr / (t1 - t0) / 1e6, (unsigned long long)hook_count); uc_close(uc);
  // 3. nine engines in cycle lockstep: one instruction each, round robin (uc_emu_start count=1)
  uc_engine* e[9]; uint32_t pcs[9]; for (int i=0;i<9;i++){ e[i]=make(); pcs[i]=0x80000000; }
  const uint64_t steps = 200000; t0 = now();
  for (uint64_t s=0; s<steps; s++) for (int i=0;i<9;i++){ uc_emu_start(e[i], pcs[i], 0, 0, 1); uint32_t pc; uc_reg_read(e[i], UC_RISCV_REG_PC, &pc); pcs[i]=pc; }
  t1 = now();
  printf("unicorn 9 engines, lockstep:     %6.1f M instr/s (all 9 together)\n", 9.0*steps / (t1 - t0) / 1e6);
  // 4. nine engines, 100 instructions per turn
  t0 = now();
  for (uint64_t s=0; s<steps/100; s++) for (int i=0;i<9;i++){ uc_emu_start(e[i], pcs[i], 0, 0, 100); uint32_t pc; uc_reg_read(e[i], UC_RISCV_REG_PC, &pc); pcs[i]=pc; }
  t1 = now();
  printf("unicorn 9 engines, 100 per turn: %6.1f M instr/s (all 9 together)\n", 9.0*steps / (t1 - t0) / 1e6);
  return 0;
}
