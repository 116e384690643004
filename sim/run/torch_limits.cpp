#include "sim/run/torch_limits.h"

#include <fmt/format.h>

#include <string>

#include "firmware/torch/runtime.h"
#include "sim/input/limits.h"
#include "sim/tools/heap_replay.h"

namespace npusim::sim {

void check_torch_inputs(const TorchOpSpec& t, const fw::NeuronPlatformConfig& cfg) {
  const uint64_t arena = cfg.gpsimd_cores.tensor_arena_bytes;
  const uint64_t host = limits().host_bytes;
  uint64_t total = 0;
  for (const auto& in : t.inputs) {
    bool ok = false;
    const auto dt = torchrt::parse_dtype(in.dtype, &ok);
    if (!ok) continue;
    std::string shape;
    uint64_t bytes = torch::element_size(dt);
    bool overflow = false;
    for (int64_t d : in.shape) {
      shape += (shape.empty() ? "" : ", ") + std::to_string(d);
      const auto u = static_cast<uint64_t>(d);
      if (u != 0 && bytes > UINT64_MAX / u) overflow = true;
      else bytes *= u;
    }
    shape = "[" + shape + "]";
    if (overflow)
      throw InputError(in.at.file, in.at.line, shape, "the tensor's size overflows 64 bits", in.at.column);
    total += bytes;
    if (total > arena || total < bytes)
      throw InputError(in.at.file, in.at.line, shape,
                       fmt::format("the inputs need {} bytes ({} for this {} tensor); the HBM tensor "
                                   "arena holds {} (gpsimd.tensor_arena_bytes)",
                                   total, bytes, in.dtype, arena),
                       in.at.column);
    if (total > host)
      throw InputError(in.at.file, in.at.line, shape,
                       fmt::format("the inputs need {} bytes of host memory, above the limit of {} "
                                   "(--limit host_bytes=N)", total, host),
                       in.at.column);
  }
}

}  // namespace npusim::sim
