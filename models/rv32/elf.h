// A program for the RV32 core, read from an ELF file: its loadable segments, entry point and
// symbols (functions for fault messages and trace spans; data symbols such as _edram for the
// runtime). Only what a statically linked RV32 executable built by `npusim cc` has is
// accepted; anything else is an ElfError whose one-line message names the file and the
// reason (another machine, 64-bit, big-endian, no entry, truncated, compressed code, ...).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace npusim::models::rv32 {

class ElfError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ElfSegment {
  uint32_t vaddr = 0;
  uint32_t memsz = 0;
  std::vector<uint8_t> data;  // the file bytes (filesz); the rest of memsz is zero
  bool exec = false;
  bool write = false;
};

struct ElfFunction {
  uint32_t addr = 0, size = 0;
  std::string name;
};

struct ElfImage {
  std::string path;
  uint32_t entry = 0;
  std::vector<ElfSegment> segments;
  std::vector<ElfFunction> functions;  // sorted by address
  std::map<std::string, uint32_t> symbols;

  // The function whose [addr, addr + size) holds `pc` (size 0: up to the next function).
  const ElfFunction* function_at(uint32_t pc) const;
  std::string function_name(uint32_t pc) const {
    const ElfFunction* f = function_at(pc);
    return f ? f->name : "?";
  }
  std::optional<uint32_t> symbol(const std::string& name) const {
    const auto it = symbols.find(name);
    return it == symbols.end() ? std::nullopt : std::optional<uint32_t>(it->second);
  }
  // The executable segment's words (the code the hart decodes), and its base.
  const ElfSegment* code() const;
};

// Reads and checks `path`. Segments larger than `max_bytes` in all are refused.
ElfImage load_elf(const std::string& path, uint64_t max_bytes = 256ull << 20);
// The same from bytes in memory (`name` for messages).
ElfImage parse_elf(const std::string& name, const std::vector<uint8_t>& bytes, uint64_t max_bytes = 256ull << 20);

// main's argv laid out at `base` (a program's .npusim_args region): the pointer array
// (argv.size() + 1 entries, the last 0), then the strings, padded to 8 bytes.
struct ArgvImage {
  uint32_t argc = 0, argv = 0;
  std::vector<uint8_t> bytes;
};
ArgvImage lay_out_argv(uint32_t base, const std::vector<std::string>& argv);

}  // namespace npusim::models::rv32
