"""Builds a firmware program with `npusim cc --platform neuron-gpsimd` and checks the ELF it
writes against the contract of docs/neuron-programs.md, reading the file itself:

  check_neuron_elf.py NPUSIM WORKDIR MODE SOURCE... [-- NPUSIM CC ARGS...]
    MODE program: RV32 little-endian executable, double-float ABI, no compressed instructions;
      entry = _start; every allocated section in FWMEM [IMAGE_BASE, +IMAGE_SIZE) but
      .allocator_bss, which is NOBITS, 0x124 bytes, at BSS (__allocator_bss_start/_end around
      it); .npusim_args NOBITS, 4096 bytes; _end_fwmem 8-aligned at or past every FWMEM
      section; every function the simulator watches is defined.
    MODE user_xmem: as program, and the xmem heap is the program's own xmem_heap.c (its marker
      symbol npusim_test_user_xmem_heap is there, the library's helpers are not).
  Options before --: --bss ADDR (default 0x80300), --image BASE:SIZE (default 0x100000:0x100000).
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cc"))
from check_elf import Elf, SHF_ALLOC, SHT_NOBITS, EF_RISCV_RVC, EF_RISCV_FLOAT_ABI, \
    EF_RISCV_FLOAT_ABI_DOUBLE, EM_RISCV, fail  # noqa: E402

WATCHED = ["init_neuron_hbm_allocator", "init_neuron_dataram_allocator", "_init_libc_heap_allocator",
           "neuron_hbm_allocate", "neuron_hbm_deallocate", "neuron_dataram_allocate",
           "neuron_dataram_deallocate", "_libc_heap_allocate", "_libc_heap_deallocate", "allocate_hbm_stack",
           "switchStack", "switchStackBack", "data_transfer_to_dram", "data_transfer_from_dram",
           "tensor_stream_copy", "xmem_heap_alloc", "xmem_heap_free"]


def build(npusim, workdir, sources, args):
    os.makedirs(workdir, exist_ok=True)
    out = os.path.join(workdir, os.path.splitext(os.path.basename(sources[0]))[0] + ".elf")
    if os.path.exists(out):
        os.remove(out)
    cmd = [npusim, "cc", "--platform", "neuron-gpsimd", "-o", out] + sources + args
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{' '.join(cmd)}: exit {r.returncode}\n{r.stdout}{r.stderr}")
    if f"built {out}" not in r.stdout:
        fail(f"{' '.join(cmd)}: no 'built {out}' line:\n{r.stdout}")
    if r.stderr:
        fail(f"{' '.join(cmd)}: unexpected messages (the library must build without warnings):\n{r.stderr}")
    return out


def check_program(elf, path, bss, image_base, image_size):
    if elf.type != 2 or elf.machine != EM_RISCV:
        fail(f"{path}: not a RISC-V executable")
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
        if s["name"] == ".allocator_bss":
            continue
        if not (image_base <= s["addr"] and s["addr"] + s["size"] <= image_base + image_size):
            fail(f"{path}: section {s['name']} [{s['addr']:#x}, +{s['size']:#x}) is not in FWMEM "
                 f"[{image_base:#x}, +{image_size:#x})")
        top = max(top, s["addr"] + s["size"])
    end = elf.symbol("_end_fwmem")["value"]
    if end % 8 or end < top:
        fail(f"{path}: _end_fwmem {end:#x} is not 8-aligned at or past the sections' end {top:#x}")
    ab = elf.section(".allocator_bss")
    a0, a1 = elf.symbol("__allocator_bss_start")["value"], elf.symbol("__allocator_bss_end")["value"]
    if ab["type"] != SHT_NOBITS or ab["addr"] != bss or ab["size"] != 0x124 or a0 != bss or a1 != bss + 0x124:
        fail(f"{path}: .allocator_bss at {ab['addr']:#x} size {ab['size']:#x} type {ab['type']} "
             f"([{a0:#x}, {a1:#x})): expected NOBITS, 0x124 bytes at {bss:#x}")
    args = elf.section(".npusim_args")
    n0, n1 = elf.symbol("__npusim_args_start")["value"], elf.symbol("__npusim_args_end")["value"]
    if args["type"] != SHT_NOBITS or args["size"] != 4096 or n0 != args["addr"] or n1 - n0 != 4096:
        fail(f"{path}: .npusim_args is not a 4096-byte NOLOAD section")
    for name in WATCHED + ["__global_pointer$", "__bss_start", "__bss_end", "main"]:
        sym = elf.symbol(name)
        if name not in ("__global_pointer$", "__bss_start", "__bss_end") and sym["type"] != 2:
            fail(f"{path}: {name} is not a function")
    text = elf.section(".text")
    for i, w in enumerate(elf.words(text["addr"], text["size"] // 4 * 4)):
        if w & 3 != 3:
            fail(f"{path}: .text word {text['addr'] + 4 * i:#x} = {w:#010x} is a compressed instruction")


def main():
    npusim, workdir, mode = sys.argv[1:4]
    rest = sys.argv[4:]
    args = []
    if "--" in rest:
        i = rest.index("--")
        rest, args = rest[:i], rest[i + 1:]
    bss, image_base, image_size = 0x80300, 0x100000, 0x100000
    sources = []
    it = iter(rest)
    for a in it:
        if a == "--bss":
            bss = int(next(it), 0)
        elif a == "--image":
            b, s = next(it).split(":")
            image_base, image_size = int(b, 0), int(s, 0)
        else:
            sources.append(a)
    path = build(npusim, workdir, sources, args)
    elf = Elf(path)
    check_program(elf, path, bss, image_base, image_size)
    if mode == "user_xmem":
        if "npusim_test_user_xmem_heap" not in elf.symbols:
            fail(f"{path}: no symbol npusim_test_user_xmem_heap: the xmem heap is not the program's own")
        for helper in ("add_to_free_list", "set_block"):
            if helper in elf.symbols:
                fail(f"{path}: the library's xmem helper {helper} is linked in beside the program's own heap")
    elif mode != "program":
        fail(f"unknown mode {mode}")
    print(f"ok: {path}")


if __name__ == "__main__":
    main()
