// Heap replay's input: the ops file read whole into ReplayOps before anything runs. The replay
// is in heap_replay.cpp; InputError and parse_number are in sim/input/input_error.cpp.
#include "sim/tools/heap_replay.h"
#include "sim/input/limits.h"

#include <fmt/format.h>

#include <istream>
#include <sstream>

namespace npusim::sim {

namespace {

uint64_t number(const std::string& file, int line, const std::string& tok, const char* what,
                uint64_t max) {
  auto v = parse_number(tok);
  if (!v) throw InputError(file, line, tok, fmt::format("{} is not a decimal or 0x-hex number", what));
  if (*v > max)
    throw InputError(file, line, tok, fmt::format("{} {} exceeds the maximum 0x{:x}", what, *v, max));
  return *v;
}

}  // namespace

std::vector<TraceLine> read_trace_lines(std::istream& in) {
  std::vector<TraceLine> out;
  std::string raw;
  int line = 0;
  while (std::getline(in, raw)) {
    ++line;
    if (auto hash = raw.find('#'); hash != std::string::npos) raw.erase(hash);
    std::istringstream ls(raw);
    TraceLine t{line, raw, {}};
    for (std::string tok; ls >> tok;) t.tok.push_back(tok);
    if (!t.tok.empty()) out.push_back(std::move(t));
  }
  return out;
}

std::vector<ReplayOp> parse_ops(std::istream& in, const std::string& file) {
  std::vector<ReplayOp> ops;
  for (const auto& tl : read_trace_lines(in)) {
    const int line = tl.line;
    const std::vector<std::string>& tok = tl.tok;
    const std::string& raw = tl.text;
    auto arity = [&](size_t lo, size_t hi, const char* usage) {
      if (tok.size() - 1 < lo || tok.size() - 1 > hi)
        throw InputError(file, line, raw.substr(raw.find_first_not_of(" \t")),
                         fmt::format("'{}' takes {}", tok[0], usage));
    };
    ReplayOp op{ReplayOp::kInit, line};
    const std::string& k = tok[0];
    if (k == "init") {
      arity(2, 2, "POOL_SIZE NUM_BLOCKS");
      op.kind = ReplayOp::kInit;
      op.a = number(file, line, tok[1], "pool size", kU32);
      op.b = number(file, line, tok[2], "number of blocks", 1u << 20);
    } else if (k == "alloc") {
      arity(2, 2, "SIZE ALIGN");
      op.kind = ReplayOp::kAlloc;
      op.a = number(file, line, tok[1], "size", kU32);
      op.b = number(file, line, tok[2], "alignment", kU32);
    } else if (k == "free") {
      arity(1, 1, "ADDR");
      op.kind = ReplayOp::kFree;
      op.a = number(file, line, tok[1], "address", UINT64_MAX);
    } else if (k == "free_space") {
      arity(2, 2, "ALIGN max|start|end");
      op.kind = ReplayOp::kFreeSpace;
      op.a = number(file, line, tok[1], "alignment", kU32);
      if (tok[2] == "max") op.b = 0;
      else if (tok[2] == "start") op.b = 1;
      else if (tok[2] == "end") op.b = 2;
      else throw InputError(file, line, tok[2], "free_space qualifier must be max, start or end");
    } else {
      throw InputError(file, line, k, "unknown op (expected init, alloc, free or free_space)");
    }
    ops.push_back(op);
  }
  return ops;
}

}  // namespace npusim::sim
