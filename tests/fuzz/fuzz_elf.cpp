// libFuzzer target: RV32 program files (a scenario's `binary: {elf: ...}`), read by the ELF
// reader of the program core. Any input ends as an image whose segments and entry are
// consistent, or an ElfError; a crash or an out-of-bounds read is a finding.
#include <vector>

#include "models/rv32/elf.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<uint8_t> bytes(data, data + size);
  try {
    const auto img = npusim::models::rv32::parse_elf("fuzz.elf", bytes, 1u << 20);
    const auto* code = img.code();
    if (!code || img.entry < code->vaddr || img.entry >= code->vaddr + code->data.size()) __builtin_trap();
    for (const auto& s : img.segments)
      if (s.data.size() > s.memsz) __builtin_trap();
    for (const auto& f : img.functions) (void)img.function_at(f.addr);
  } catch (const npusim::models::rv32::ElfError&) {
  }
  return 0;
}
