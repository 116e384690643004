#include "models/rv32/elf.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sys/stat.h>

#include <fmt/format.h>

namespace npusim::models::rv32 {

namespace {

// ELF constants (System V ABI, RISC-V ELF psABI).
constexpr uint16_t kEtExec = 2;
constexpr uint16_t kEmRiscv = 243;
constexpr uint32_t kPtLoad = 1;
constexpr uint32_t kPfX = 1, kPfW = 2;
constexpr uint32_t kShtSymtab = 2;
constexpr uint32_t kEfRvc = 0x1;
constexpr uint32_t kEfFloatAbiMask = 0x6, kEfFloatAbiDouble = 0x4;
constexpr uint8_t kSttFunc = 2;

const char* machine_name(uint16_t m) {
  switch (m) {
    case 3: return "x86 (i386)";
    case 8: return "MIPS";
    case 20: return "PowerPC";
    case 40: return "ARM";
    case 62: return "x86-64";
    case 94: return "Xtensa";
    case 183: return "AArch64";
    case 243: return "RISC-V";
    default: return nullptr;
  }
}

struct Reader {
  const std::string& name;
  const std::vector<uint8_t>& b;
  uint32_t u32(uint64_t off) const {
    if (off + 4 > b.size()) throw ElfError(fmt::format("{}: truncated ELF file (reading offset {})", name, off));
    uint32_t v;
    std::memcpy(&v, b.data() + off, 4);
    return v;
  }
  uint16_t u16(uint64_t off) const {
    if (off + 2 > b.size()) throw ElfError(fmt::format("{}: truncated ELF file (reading offset {})", name, off));
    uint16_t v;
    std::memcpy(&v, b.data() + off, 2);
    return v;
  }
};

}  // namespace

const ElfFunction* ElfImage::function_at(uint32_t pc) const {
  auto it = std::upper_bound(functions.begin(), functions.end(), pc,
                             [](uint32_t p, const ElfFunction& f) { return p < f.addr; });
  if (it == functions.begin()) return nullptr;
  --it;
  if (it->size != 0 && pc >= it->addr + it->size) return nullptr;
  return &*it;
}

const ElfSegment* ElfImage::code() const {
  for (const auto& s : segments)
    if (s.exec) return &s;
  return nullptr;
}

ElfImage parse_elf(const std::string& name, const std::vector<uint8_t>& b, uint64_t max_bytes) {
  const Reader r{name, b};
  if (b.size() < 4 || std::memcmp(b.data(), "\x7f" "ELF", 4) != 0)
    throw ElfError(fmt::format("{}: not an ELF file (build programs with `npusim cc`)", name));
  if (b.size() < 52) throw ElfError(fmt::format("{}: truncated ELF header ({} bytes)", name, b.size()));
  if (b[4] == 2) {
    uint16_t m = 0;
    std::memcpy(&m, b.data() + 18, 2);
    const char* mn = machine_name(m);
    throw ElfError(fmt::format("{}: a 64-bit {}ELF file; the core runs RV32 programs (build with `npusim cc`)", name,
                               mn ? std::string(mn) + " " : std::string()));
  }
  if (b[4] != 1) throw ElfError(fmt::format("{}: ELF class {} is neither 32- nor 64-bit", name, b[4]));
  if (b[5] != 1) throw ElfError(fmt::format("{}: a big-endian ELF file; RISC-V is little-endian", name));
  const uint16_t type = r.u16(16), machine = r.u16(18);
  if (machine != kEmRiscv) {
    const char* m = machine_name(machine);
    throw ElfError(fmt::format("{}: built for {} (e_machine {}), not RISC-V", name, m ? m : "another architecture", machine));
  }
  if (type != kEtExec)
    throw ElfError(fmt::format("{}: not an executable (e_type {}: {}); link it with `npusim cc`", name, type,
                               type == 1 ? "a relocatable object" : type == 3 ? "a shared object" : "other"));
  const uint32_t flags = r.u32(36);
  if (flags & kEfRvc)
    throw ElfError(fmt::format("{}: built with compressed instructions (C extension), which the core does not decode; "
                               "build with -march=rv32imafd (`npusim cc` does)", name));
  if ((flags & kEfFloatAbiMask) != kEfFloatAbiDouble && (flags & kEfFloatAbiMask) != 0)
    throw ElfError(fmt::format("{}: float ABI flags 0x{:x}: the core runs ilp32d (or ilp32) programs", name, flags));
  ElfImage img;
  img.path = name;
  img.entry = r.u32(24);
  const uint32_t phoff = r.u32(28), shoff = r.u32(32);
  const uint16_t phentsize = r.u16(42), phnum = r.u16(44), shentsize = r.u16(46), shnum = r.u16(48);
  if (phnum == 0) throw ElfError(fmt::format("{}: no program headers (nothing to load)", name));
  if (phentsize < 32) throw ElfError(fmt::format("{}: program header size {} is too small", name, phentsize));
  if (uint64_t{phoff} + uint64_t{phnum} * phentsize > b.size())
    throw ElfError(fmt::format("{}: program headers past the end of the file", name));
  uint64_t total = 0;
  for (uint32_t i = 0; i < phnum; ++i) {
    const uint64_t ph = phoff + uint64_t{i} * phentsize;
    if (r.u32(ph) != kPtLoad) continue;
    const uint32_t off = r.u32(ph + 4), vaddr = r.u32(ph + 8), filesz = r.u32(ph + 16), memsz = r.u32(ph + 20),
                   pflags = r.u32(ph + 24);
    if (memsz == 0) continue;
    if (filesz > memsz)
      throw ElfError(fmt::format("{}: segment {} has more file bytes ({}) than memory bytes ({})", name, i, filesz, memsz));
    if (uint64_t{off} + filesz > b.size())
      throw ElfError(fmt::format("{}: segment {} lies past the end of the file (truncated?)", name, i));
    if (uint64_t{vaddr} + memsz > 0x100000000ull)
      throw ElfError(fmt::format("{}: segment {} at 0x{:x} of {} bytes runs past the 32-bit address space", name, i,
                                 vaddr, memsz));
    total += memsz;
    if (total > max_bytes)
      throw ElfError(fmt::format("{}: the segments need more than {} MiB", name, max_bytes >> 20));
    ElfSegment s;
    s.vaddr = vaddr;
    s.memsz = memsz;
    s.data.assign(b.begin() + off, b.begin() + off + filesz);
    s.exec = (pflags & kPfX) != 0;
    s.write = (pflags & kPfW) != 0;
    img.segments.push_back(std::move(s));
  }
  if (img.segments.empty()) throw ElfError(fmt::format("{}: no loadable segment", name));
  int exec_segments = 0;
  bool entry_ok = false;
  for (const auto& s : img.segments) {
    if (!s.exec) continue;
    ++exec_segments;
    if (img.entry >= s.vaddr && img.entry < s.vaddr + s.data.size()) entry_ok = true;
  }
  if (exec_segments == 0) throw ElfError(fmt::format("{}: no executable segment", name));
  if (exec_segments > 1)
    throw ElfError(fmt::format("{}: {} executable segments; the core runs programs with one (link with `npusim cc`)", name,
                               exec_segments));
  if (img.entry == 0 || !entry_ok)
    throw ElfError(fmt::format("{}: entry point 0x{:x} is not in the executable segment", name, img.entry));
  for (size_t i = 0; i < img.segments.size(); ++i)
    for (size_t j = i + 1; j < img.segments.size(); ++j) {
      const auto &a = img.segments[i], &c = img.segments[j];
      if (uint64_t{a.vaddr} < uint64_t{c.vaddr} + c.memsz && uint64_t{c.vaddr} < uint64_t{a.vaddr} + a.memsz)
        throw ElfError(fmt::format("{}: segments at 0x{:x} and 0x{:x} overlap", name, a.vaddr, c.vaddr));
    }
  // Symbols (optional: a stripped program runs, its faults name no function).
  if (shoff != 0 && shnum != 0 && shentsize >= 40 && uint64_t{shoff} + uint64_t{shnum} * shentsize <= b.size()) {
    for (uint32_t i = 0; i < shnum; ++i) {
      const uint64_t sh = shoff + uint64_t{i} * shentsize;
      if (r.u32(sh + 4) != kShtSymtab) continue;
      const uint32_t off = r.u32(sh + 16), size = r.u32(sh + 20), link = r.u32(sh + 24), entsize = r.u32(sh + 36);
      if (entsize < 16 || link >= shnum || uint64_t{off} + size > b.size()) break;
      const uint64_t strsh = shoff + uint64_t{link} * shentsize;
      const uint32_t stroff = r.u32(strsh + 16), strsize = r.u32(strsh + 20);
      if (uint64_t{stroff} + strsize > b.size()) break;
      for (uint64_t e = off; e + 16 <= uint64_t{off} + size; e += entsize) {
        const uint32_t nm = r.u32(e), value = r.u32(e + 4), sz = r.u32(e + 8);
        const uint8_t info = b[e + 12];
        const uint16_t shndx = r.u16(e + 14);
        if (nm == 0 || nm >= strsize || shndx == 0) continue;
        const char* p = reinterpret_cast<const char*>(b.data() + stroff + nm);
        const size_t len = strnlen(p, strsize - nm);
        std::string sym(p, len);
        if (sym.empty() || sym[0] == '$' || sym.rfind(".L", 0) == 0) continue;
        img.symbols.emplace(sym, value);
        if ((info & 0xf) == kSttFunc) img.functions.push_back(ElfFunction{value, sz, sym});
      }
      break;
    }
    std::sort(img.functions.begin(), img.functions.end(),
              [](const ElfFunction& x, const ElfFunction& y) { return x.addr < y.addr; });
  }
  return img;
}

ElfImage load_elf(const std::string& path, uint64_t max_bytes) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) throw ElfError(fmt::format("{}: no such file", path));
  if (S_ISDIR(st.st_mode)) throw ElfError(fmt::format("{}: a directory, not a program", path));
  if (!S_ISREG(st.st_mode)) throw ElfError(fmt::format("{}: not a regular file", path));
  if (static_cast<uint64_t>(st.st_size) > max_bytes + (64ull << 20))
    throw ElfError(fmt::format("{}: {} bytes is too large for a program", path, st.st_size));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ElfError(fmt::format("{}: cannot be read", path));
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse_elf(path, bytes, max_bytes);
}

ArgvImage lay_out_argv(uint32_t base, const std::vector<std::string>& argv) {
  ArgvImage a;
  a.argc = static_cast<uint32_t>(argv.size());
  a.argv = base;
  const uint32_t array_bytes = static_cast<uint32_t>(4 * (argv.size() + 1));
  a.bytes.assign(array_bytes, 0);
  uint32_t str = base + array_bytes;
  for (size_t i = 0; i < argv.size(); ++i) {
    std::memcpy(a.bytes.data() + 4 * i, &str, 4);
    a.bytes.insert(a.bytes.end(), argv[i].begin(), argv[i].end());
    a.bytes.push_back(0);
    str += static_cast<uint32_t>(argv[i].size() + 1);
  }
  while (a.bytes.size() % 8) a.bytes.push_back(0);
  return a;
}

}  // namespace npusim::models::rv32
