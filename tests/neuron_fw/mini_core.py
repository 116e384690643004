"""A stand-in for the neuron-gpsimd management core, for the device library's own tests while
the simulator cannot run firmware programs yet: runs an RV32 ELF built by
`npusim cc --platform neuron-gpsimd` on Unicorn (libunicorn.so.2 through ctypes) with the
contract's memory map and registers, and reports what the program did as JSON.

  mini_core.py ELF [--image BASE:SIZE] [--max-instructions N]

Memory: FWMEM (the ELF's loadable segments), dataram [0x80000, 0x90000), the HBM window
[0x80000000, +64 MiB) (device address 0x1_0000_0000 + offset), npusim's host interface at
0x1002f000 (PUTCHAR, EXIT, STACK_LO, STACK_HI) and DMA registers at 0x1002f100 (a descriptor
is copied when START is written; STATUS reads 0). The stack guard of the contract: once
STACK_HI is written, a write of sp below STACK_LO stops the run ("overflow"); the lowest sp
written inside [STACK_LO, STACK_HI] is the stack's high-water mark.

Output (stdout, one JSON object): end (exit|abort|overflow|fault|limit), exit_code, output
(what was printed), stacks ([lo, hi, lowest sp] per armed stack, in order), dma
([src, dst, len, channel] per descriptor), instructions.
"""
import ctypes
import json
import struct
import sys

UC_ARCH_RISCV, UC_MODE_RISCV32 = 8, 4
UC_HOOK_INTR, UC_HOOK_CODE = 1, 4
REG_PC, REG_SP, REG_A0, REG_MSTATUS = 190, 3, 11, 116
HOST, DMA = 0x1002F000, 0x1002F100
DATARAM, DATARAM_SIZE = 0x80000, 0x10000
WINDOW, WINDOW_SIZE, HBM = 0x80000000, 64 << 20, 0x1_0000_0000

uc_lib = ctypes.CDLL("libunicorn.so.2")
u64 = ctypes.c_uint64
READ_CB = ctypes.CFUNCTYPE(u64, ctypes.c_void_p, u64, ctypes.c_uint, ctypes.c_void_p)
WRITE_CB = ctypes.CFUNCTYPE(None, ctypes.c_void_p, u64, ctypes.c_uint, u64, ctypes.c_void_p)
CODE_CB = ctypes.CFUNCTYPE(None, ctypes.c_void_p, u64, ctypes.c_uint32, ctypes.c_void_p)
INTR_CB = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p)


def check(err, what):
    if err != 0:
        raise RuntimeError(f"{what}: unicorn error {err}")


class Core:
    def __init__(self, elf, image, limit):
        self.uc = ctypes.c_void_p()
        check(uc_lib.uc_open(UC_ARCH_RISCV, UC_MODE_RISCV32, ctypes.byref(self.uc)), "uc_open")
        self.limit = limit
        self.out, self.stacks, self.dma, self.regs = [], [], [], {}
        self.end, self.exit_code, self.count, self.armed, self.last_sp = None, None, 0, None, 0
        self.map(image[0], image[1])
        self.map(DATARAM, DATARAM_SIZE)
        self.map(WINDOW, WINDOW_SIZE)
        self.read_cb, self.write_cb = READ_CB(self.mmio_read), WRITE_CB(self.mmio_write)
        check(uc_lib.uc_mmio_map(self.uc, u64(HOST), ctypes.c_size_t(0x1000), self.read_cb, None,
                                 self.write_cb, None), "uc_mmio_map")
        self.entry = self.load(elf)
        self.code_cb, self.intr_cb = CODE_CB(self.on_code), INTR_CB(self.on_intr)
        h = ctypes.c_size_t()
        for kind, cb in ((UC_HOOK_CODE, self.code_cb), (UC_HOOK_INTR, self.intr_cb)):
            check(uc_lib.uc_hook_add(self.uc, ctypes.byref(h), kind, cb, None, u64(1), u64(0)), "uc_hook_add")
        self.reg_write(REG_MSTATUS, 0x6000 | 0x1800)  # FS dirty, MPP=M: the FPU is on

    def map(self, base, size):
        check(uc_lib.uc_mem_map(self.uc, u64(base), ctypes.c_size_t(size), 7), f"map {base:#x}")

    def load(self, path):
        d = open(path, "rb").read()
        entry, phoff = struct.unpack_from("<II", d, 24)
        phentsize, phnum = struct.unpack_from("<HH", d, 42)
        for i in range(phnum):
            typ, off, vaddr, _, filesz, memsz = struct.unpack_from("<IIIIII", d, phoff + i * phentsize)
            if typ == 1 and filesz:
                self.write(vaddr, d[off:off + filesz])
        return entry

    def write(self, addr, data):
        check(uc_lib.uc_mem_write(self.uc, u64(addr), data, ctypes.c_size_t(len(data))), f"write {addr:#x}")

    def read(self, addr, n):
        buf = ctypes.create_string_buffer(n)
        check(uc_lib.uc_mem_read(self.uc, u64(addr), buf, ctypes.c_size_t(n)), f"read {addr:#x}")
        return buf.raw

    def reg_write(self, reg, v):
        x = ctypes.c_uint32(v)
        check(uc_lib.uc_reg_write(self.uc, reg, ctypes.byref(x)), "reg_write")

    def reg(self, reg):
        x = ctypes.c_uint32()
        check(uc_lib.uc_reg_read(self.uc, reg, ctypes.byref(x)), "reg_read")
        return x.value

    def stop(self, why):
        if self.end is None:
            self.end = why
        uc_lib.uc_emu_stop(self.uc)

    def core_addr(self, a):
        return a - HBM + WINDOW if HBM <= a < HBM + WINDOW_SIZE else a

    def mmio_read(self, uc, off, size, _):
        return 0  # DMA STATUS and ERRORS: idle, no errors (descriptors complete at START)

    def mmio_write(self, uc, off, size, value, _):
        value &= 0xFFFFFFFF
        if off == 0x00:
            self.out.append(chr(value & 0xFF))
        elif off == 0x08:
            self.exit_code = value - (1 << 32) if value >> 31 else value
            self.stop("exit")
        elif off in (0x10, 0x14):
            self.regs[off] = value
            if off == 0x14:
                self.armed = [self.regs.get(0x10, 0), value, value]
                self.last_sp = self.reg(REG_SP)
                self.stacks.append(self.armed)
        elif off >= 0x100:
            self.regs[off] = value
            if off == 0x118:
                r = self.regs
                src, dst = r.get(0x100, 0) | r.get(0x104, 0) << 32, r.get(0x108, 0) | r.get(0x10C, 0) << 32
                n, ch = r.get(0x110, 0), r.get(0x114, 0)
                self.dma.append([src, dst, n, ch])
                if n:
                    self.write(self.core_addr(dst), self.read(self.core_addr(src), n))

    def on_code(self, uc, addr, size, _):
        self.count += 1
        if self.count > self.limit:
            self.stop("limit")
        if self.armed is not None:
            # The hook runs before each instruction: sp is what the previous one left. Only a
            # write of sp counts (the guard is armed before sp moves onto the new stack).
            sp = self.reg(REG_SP)
            if sp != self.last_sp:
                self.last_sp = sp
                if sp < self.armed[0]:
                    self.stop("overflow")
                elif sp <= self.armed[1]:
                    self.armed[2] = min(self.armed[2], sp)

    def on_intr(self, uc, intno, _):
        self.stop("abort")

    def run(self):
        self.reg_write(REG_A0, 0)
        err = uc_lib.uc_emu_start(self.uc, u64(self.entry), u64(0xFFFFFFFF), u64(0), ctypes.c_size_t(0))
        pc = self.reg(REG_PC)
        if err == 10 and self.end is None and self.read(pc, 4) == b"\x73\x00\x10\x00":
            self.end = "abort"  # ebreak: abort()
        elif err != 0 and self.end is None:
            self.end = f"fault (unicorn error {err} at pc {pc:#x})"
        return {"end": self.end or "stopped", "exit_code": self.exit_code, "output": "".join(self.out),
                "stacks": self.stacks, "dma": self.dma, "instructions": self.count}


def main():
    elf = sys.argv[1]
    image, limit = (0x100000, 0x100000), 5_000_000
    args = iter(sys.argv[2:])
    for a in args:
        if a == "--image":
            b, s = next(args).split(":")
            image = (int(b, 0), int(s, 0))
        elif a == "--max-instructions":
            limit = int(next(args))
    print(json.dumps(Core(elf, image, limit).run()))


if __name__ == "__main__":
    main()
