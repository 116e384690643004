"""Builds a program with `npusim cc` and checks the ELF it writes against the contract of
docs/snitch-programs.md, reading the file itself (no binutils needed):

  check_elf.py NPUSIM WORKDIR program SOURCE [NPUSIM CC ARGS...]
      RV32 little-endian executable, double-float ABI, no compressed instructions; entry =
      _start; every allocated section inside L3 [0x80000000, 0x100000000); _edram defined,
      8-aligned, at or past the end of every section; .npusim_args NOBITS, 4096 bytes,
      before _edram; the allocator state at TLS offsets 0 and 24; the start-up code made of
      RV32I/M instructions and the two CSR reads it needs.
  check_elf.py NPUSIM WORKDIR xdma SOURCE
      the Xdma instructions and the barrier of tests/cc/xdma.c, word for word against the
      encodings of the contract's table (custom-1 opcode 0x2b, funct3 0).
"""
import os
import struct
import subprocess
import sys

L3_BASE, L3_END = 0x8000_0000, 0x1_0000_0000
SHF_ALLOC, SHF_TLS = 0x2, 0x400
SHT_NOBITS = 8
STT_FUNC, STT_TLS = 2, 6
EF_RISCV_RVC, EF_RISCV_FLOAT_ABI = 0x1, 0x6
EF_RISCV_FLOAT_ABI_DOUBLE = 0x4
EM_RISCV = 243


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def build(npusim, workdir, source, args):
    os.makedirs(workdir, exist_ok=True)
    out = os.path.join(workdir, os.path.splitext(os.path.basename(source))[0] + ".elf")
    if os.path.exists(out):
        os.remove(out)
    cmd = [npusim, "cc", "-o", out, source] + args
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{' '.join(cmd)}: exit {r.returncode}\n{r.stdout}{r.stderr}")
    if f"built {out}" not in r.stdout:
        fail(f"{' '.join(cmd)}: no 'built {out}' line:\n{r.stdout}")
    if r.stderr:
        fail(f"{' '.join(cmd)}: unexpected messages (the runtime must build without warnings):\n{r.stderr}")
    return out


class Elf:
    def __init__(self, path):
        with open(path, "rb") as f:
            self.data = f.read()
        d = self.data
        if d[:4] != b"\x7fELF":
            fail(f"{path}: not an ELF file")
        if d[4] != 1:
            fail(f"{path}: ELF class {d[4]}, expected 1 (32-bit)")
        if d[5] != 1:
            fail(f"{path}: not little-endian")
        (self.type, self.machine, _, self.entry, _, shoff, self.flags, _, _, _, shentsize, shnum,
         shstrndx) = struct.unpack_from("<HHIIIIIHHHHHH", d, 16)
        self.sections = []
        for i in range(shnum):
            name, typ, flags, addr, off, size, link, info, align, entsize = struct.unpack_from(
                "<IIIIIIIIII", d, shoff + i * shentsize)
            self.sections.append(dict(name=name, type=typ, flags=flags, addr=addr, off=off, size=size,
                                      link=link))
        strtab = self.sections[shstrndx]
        for s in self.sections:
            s["name"] = self.cstr(strtab["off"] + s["name"])
        self.symbols = {}
        for s in self.sections:
            if s["type"] != 2:  # SHT_SYMTAB
                continue
            names = self.sections[s["link"]]
            for off in range(s["off"], s["off"] + s["size"], 16):
                name, value, size, info, _, shndx = struct.unpack_from("<IIIBBH", d, off)
                if name:
                    self.symbols[self.cstr(names["off"] + name)] = dict(value=value, size=size, type=info & 0xF,
                                                                       shndx=shndx)

    def cstr(self, off):
        return self.data[off:self.data.index(b"\0", off)].decode()

    def section(self, name):
        for s in self.sections:
            if s["name"] == name:
                return s
        fail(f"no section {name}")

    def symbol(self, name):
        if name not in self.symbols:
            fail(f"no symbol {name}")
        return self.symbols[name]

    def words(self, addr, size):
        """The 32-bit words at [addr, addr + size) of the section holding them."""
        for s in self.sections:
            if s["flags"] & SHF_ALLOC and s["type"] != SHT_NOBITS and s["addr"] <= addr < s["addr"] + s["size"]:
                off = s["off"] + addr - s["addr"]
                return list(struct.unpack_from(f"<{size // 4}I", self.data, off))
        fail(f"no section holds {addr:#x}")


def r_type(funct7, rs2, rs1, funct3, rd, opcode):
    return funct7 << 25 | rs2 << 20 | rs1 << 15 | funct3 << 12 | rd << 7 | opcode


def i_type(imm, rs1, funct3, rd, opcode):
    return (imm & 0xFFF) << 20 | rs1 << 15 | funct3 << 12 | rd << 7 | opcode


def check_program(elf, path):
    if elf.type != 2:
        fail(f"{path}: ELF type {elf.type}, expected 2 (executable)")
    if elf.machine != EM_RISCV:
        fail(f"{path}: machine {elf.machine}, expected {EM_RISCV} (RISC-V)")
    if elf.flags & EF_RISCV_RVC:
        fail(f"{path}: the RVC flag is set: compressed instructions")
    if elf.flags & EF_RISCV_FLOAT_ABI != EF_RISCV_FLOAT_ABI_DOUBLE:
        fail(f"{path}: e_flags {elf.flags:#x}: not the double-float ABI (ilp32d)")
    start = elf.symbol("_start")
    if elf.entry != start["value"]:
        fail(f"{path}: entry {elf.entry:#x} is not _start ({start['value']:#x})")
    top = 0
    for s in elf.sections:
        if not s["flags"] & SHF_ALLOC:
            continue
        if not (L3_BASE <= s["addr"] and s["addr"] + s["size"] <= L3_END):
            fail(f"{path}: section {s['name']} [{s['addr']:#x}, +{s['size']:#x}) is not in L3")
        if not (s["flags"] & SHF_TLS and s["type"] == SHT_NOBITS):  # .tbss takes no address space
            top = max(top, s["addr"] + s["size"])
    edram = elf.symbol("_edram")["value"]
    if edram % 8 or edram < top:
        fail(f"{path}: _edram {edram:#x} is not 8-aligned at or past the sections' end {top:#x}")
    args = elf.section(".npusim_args")
    a0, a1 = elf.symbol("__npusim_args_start")["value"], elf.symbol("__npusim_args_end")["value"]
    if args["type"] != SHT_NOBITS or args["size"] != 4096 or a0 != args["addr"] or a1 - a0 != 4096 \
            or a0 % 8 or a1 > edram:
        fail(f"{path}: .npusim_args {args} / [{a0:#x}, {a1:#x}) is not a 4096-byte NOLOAD section before _edram")
    for name, offset in (("l1_allocator_v2", 0), ("l3_allocator_v2", 24)):
        sym = elf.symbol(name)
        if sym["type"] != STT_TLS or sym["value"] != offset or sym["size"] != 24:
            fail(f"{path}: {name} {sym}: expected a 24-byte TLS variable at TLS offset {offset}")
    for name in ("__tdata_start", "__tdata_end", "__tbss_start", "__tbss_end", "__bss_start", "__bss_end",
                 "__global_pointer$"):
        elf.symbol(name)
    text = elf.section(".text")
    for i, w in enumerate(elf.words(text["addr"], text["size"] // 4 * 4)):
        if w & 3 != 3:
            fail(f"{path}: .text word {text['addr'] + 4 * i:#x} = {w:#010x} is a compressed instruction")
    # The start-up code: RV32I and M only, and no CSR but mhartid and the barrier.
    for i, w in enumerate(elf.words(start["value"], start["size"])):
        at = f"{path}: _start+{4 * i:#x} ({w:#010x})"
        op, f3, f7 = w & 0x7F, (w >> 12) & 7, w >> 25
        if op in (0x37, 0x17, 0x6F, 0x67, 0x63, 0x13, 0x0F):
            continue
        if op == 0x03 and f3 in (0, 1, 2, 4, 5) or op == 0x23 and f3 in (0, 1, 2):
            continue
        if op == 0x33 and f7 in (0x00, 0x20, 0x01):
            continue
        if op == 0x73 and f3 == 2 and (w >> 20) in (0xF14, 0x7C2):
            continue
        fail(f"{at}: not an RV32IM instruction of the start-up code")


def check_xdma(elf, path):
    a0, a1, a2, a3, a4, a5 = 10, 11, 12, 13, 14, 15
    x0, ret = 0, i_type(0, 1, 0, 0, 0x67)
    custom1 = 0x2B
    dmsrc = lambda lo, hi: r_type(0, hi, lo, 0, x0, custom1)                   # .insn r 0x2b, 0, 0, x0, lo, hi
    dmdst = lambda lo, hi: r_type(1, hi, lo, 0, x0, custom1)                   # .insn r 0x2b, 0, 1, x0, lo, hi
    dmcpyi = lambda rd, size, cfg: i_type(2 << 5 | cfg, size, 0, rd, custom1)  # .insn i 0x2b, 0, rd, size, (2<<5)|cfg
    dmstati = lambda rd, st: i_type(4 << 5 | st, x0, 0, rd, custom1)           # .insn i 0x2b, 0, rd, x0, (4<<5)|st
    dmstr = lambda src, dst: r_type(6, dst, src, 0, x0, custom1)               # .insn r 0x2b, 0, 6, x0, srcstr, dststr
    dmrep = lambda reps: r_type(7, x0, reps, 0, x0, custom1)                   # .insn r 0x2b, 0, 7, x0, reps, x0
    barrier = i_type(0x7C2, x0, 2, x0, 0x73)                                   # csrr x0, 0x7c2
    expected = {
        # (dst a0, src a1, size a2)
        "xdma_start_1d": [dmsrc(a1, x0), dmdst(a0, x0), dmcpyi(a0, a2, 0), ret],
        # (dst a0, src a1, size a2, dst_stride a3, src_stride a4, repeat a5)
        "xdma_start_2d": [dmsrc(a1, x0), dmdst(a0, x0), dmstr(a4, a3), dmrep(a5), dmcpyi(a0, a2, 2), ret],
        "xdma_completed_id": [dmstati(a0, 0), ret],
        "xdma_busy": [dmstati(a0, 2), ret],
        "xdma_barrier": [barrier, ret],
    }
    for fn, words in expected.items():
        sym = elf.symbol(fn)
        got = elf.words(sym["value"], sym["size"])
        if got != words:
            fail(f"{path}: {fn}: {' '.join(f'{w:#010x}' for w in got)}, expected "
                 f"{' '.join(f'{w:#010x}' for w in words)}")


def main():
    npusim, workdir, mode, source = sys.argv[1:5]
    args = sys.argv[5:]
    if mode == "program":
        path = build(npusim, workdir, source, args)
        check_program(Elf(path), path)
    elif mode == "xdma":
        path = build(npusim, workdir, source, ["-O2"] + args)
        elf = Elf(path)
        check_program(elf, path)
        check_xdma(elf, path)
    else:
        fail(f"unknown mode {mode}")
    print(f"ok: {path}")


if __name__ == "__main__":
    main()
