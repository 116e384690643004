// The torch API on a simulated core, part 2: the stream accessors (a 4 KiB dataram buffer,
// refilled and flushed by DMA) and the coherence checks of every accessor kind.
#include "firmware/torch/runtime_internal.h"

#include <cstdio>
#include <cstring>
#include <stdexcept>

#include <neuron/neuron-utils.hpp>

namespace torch::detail {

namespace {
// Host-mode streams (no simulated core).
struct HostStream {
  TensorImpl* t;
  size_t elem;
  int64_t pos;
  bool write;
  bool closed = false;
};
std::vector<HostStream>& host_streams() {
  static std::vector<HostStream> v;
  return v;
}
constexpr int kHostSlot = 1 << 20;

void flush(CoreCtx& c, CoreCtx::Stream& s, const char* call) {
  if (!s.write || s.count == 0) return;
  npusim::torchrt::dma_move(c, s.t->hbm + static_cast<uint64_t>(s.first) * s.elem, s.buf,
                            static_cast<uint64_t>(s.count) * s.elem, call);
  s.first += s.count;
  s.count = 0;
}

namespace {
const char* policy_name(torch::CoherencyEnforcer::Policy p) {
  switch (p) {
    case torch::CoherencyEnforcer::COHERENT: return "COHERENT";
    case torch::CoherencyEnforcer::INCOHERENT_VERBOSE: return "INCOHERENT_VERBOSE";
    default: return "INCOHERENT_QUIET";
  }
}
int& active(TensorImpl& t, AccessKind k) {
  return k == AccessKind::kStandard ? t.standard
         : k == AccessKind::kReadStream ? t.read_streams : t.write_streams;
}
}  // namespace

}  // namespace

CoherencyEnforcer::Policy coherence_policy(const TensorImpl& t) { return t.policy; }
void set_coherence_policy(TensorImpl& t, CoherencyEnforcer::Policy p) { t.policy = p; }

void acquire_access(TensorImpl& t, AccessKind kind, const char* call) {
  // The public guidance: several read streams, or one write stream, per tensor; streams not
  // together with standard accessors. Standard accessors among themselves are coherent.
  std::string clash;
  if (kind != AccessKind::kStandard && t.write_streams) clash = "a write stream accessor is active";
  else if (kind == AccessKind::kWriteStream && t.read_streams) clash = "a read stream accessor is active";
  else if (kind != AccessKind::kStandard && t.standard) clash = "a standard accessor is active";
  else if (kind == AccessKind::kStandard && (t.read_streams || t.write_streams))
    clash = "a stream accessor is active";
  if (!clash.empty() && t.policy != CoherencyEnforcer::INCOHERENT_QUIET) {
    const std::string msg = fmt::format(
        "potentially incoherent access to {}: {} opened while {} (coherence policy {}; "
        "set_accessor_coherence_policy(INCOHERENT_VERBOSE or INCOHERENT_QUIET) allows it)",
        t.name.empty() ? "a tensor" : t.name, call, clash, policy_name(t.policy));
    CoreCtx* c = current_ctx();
    if (t.policy == CoherencyEnforcer::COHERENT) {
      if (c) c->run->fail(c, FF::kUsage, call, t.hbm, msg);
      throw std::logic_error(std::string(call) + ": " + msg);
    }
    if (c) c->run->warn(c, "incoherent access", call, t.hbm, msg);
    else std::fprintf(stderr, "npusim: warning: %s: %s\n", call, msg.c_str());
  }
  ++active(t, kind);
}

void release_access(TensorImpl& t, AccessKind kind) {
  int& n = active(t, kind);
  if (n > 0) --n;
}

namespace {

// The host stream in `slot`, checked for one more element by `accessor`, which does `verb`.
HostStream& next_host_stream(int slot, const char* accessor, const char* verb) {
  auto& h = host_streams().at(static_cast<size_t>(slot - kHostSlot));
  if (h.closed) throw std::logic_error(std::string(accessor) + ": " + verb + "() on a closed stream");
  if (h.pos >= h.t->numel)
    throw std::out_of_range(std::string(accessor) + ": " + verb + " past the end of " + h.t->name);
  return h;
}

// The core stream in `slot`, checked for one more element by `call` ("read" or "write"): open,
// and not past the end of its tensor; `access` names the access in that fault ("a write").
CoreCtx::Stream& next_stream(CoreCtx& c, int slot, const char* call, const char* access) {
  if (slot < 0 || static_cast<size_t>(slot) >= c.streams.size())
    c.run->fail(&c, FF::kUsage, call, 0, fmt::format("{}() on a moved-from stream accessor", call));
  auto& s = c.streams.at(static_cast<size_t>(slot));
  if (!s.open) c.run->fail(&c, FF::kUsage, call, s.t->hbm, fmt::format("{}() on a closed stream", call));
  if (s.pos >= s.t->numel)
    c.run->fail(&c, FF::kBadAddress, call, s.t->hbm + static_cast<uint64_t>(s.pos) * s.elem,
                fmt::format("{} past the end of {} ({} elements): {} outside its tensor", call, s.t->name,
                            s.t->numel, access));
  return s;
}
}  // namespace

int stream_open(TensorImpl& t, bool write, size_t elem, const char* call) {
  acquire_access(t, write ? AccessKind::kWriteStream : AccessKind::kReadStream, call);
  CoreCtx* c = current_ctx();
  if (!c || t.hbm == 0) {
    host_streams().push_back(HostStream{&t, elem, 0, write, false});
    return kHostSlot + static_cast<int>(host_streams().size()) - 1;
  }
  ApiCall api(*c, call);
  CoreCtx::Stream s;
  s.open = true;
  s.write = write;
  s.t = &t;
  s.elem = elem;
  const auto& g = c->run->cfg->gpsimd_cores;
  int open = 0;
  for (const auto& x : c->streams) open += x.open;
  if (c->fast_streams < g.max_streams) {
    uint32_t buf = 0;
    TimeScope sp(*c, TimeKind::kTcmStack);
    const int status = c->fw->heaps().neuron_dataram_allocate(npusim::fw::kBufferSizeBytes, &buf, 0);
    npusim::torchrt::dataram_heap_op(*c, true, status);
    if (status == 0) {
      s.fast = true;
      s.buf = buf;
      ++c->fast_streams;
      c->tcm_live += npusim::fw::kBufferSizeBytes;
      c->run->tcm_peak = std::max(c->run->tcm_peak, c->tcm_live);
    } else {
      c->run->warn(c, "stream without buffer", call, t.hbm,
                   fmt::format("stream {} of this core: no 4 KiB buffer left in the 16 KiB TCM pool; "
                               "it runs at standard-accessor speed",
                               open + 1));
    }
  } else {
    c->run->warn(c, "fifth stream", call, t.hbm,
                 fmt::format("stream {} of this core: only {} streams are fast; this one runs at "
                             "standard-accessor speed (every element an HBM trip)",
                             open + 1, g.max_streams));
  }
  c->streams.push_back(s);
  return static_cast<int>(c->streams.size()) - 1;
}

void stream_read(int slot, void* dst) {
  if (slot >= kHostSlot) {
    auto& h = next_host_stream(slot, "read_stream_accessor", "read");
    std::memcpy(dst, h.t->host.data() + h.pos++ * static_cast<int64_t>(h.elem), h.elem);
    return;
  }
  CoreCtx* c = current_ctx();
  if (c == nullptr) throw std::logic_error("a stream accessor used outside the run that opened it");
  npusim::torchrt::charge_kernel_code(*c);  // the kernel's own code up to this access first
  auto& s = next_stream(*c, slot, "read", "an access");
  if (!s.fast) {
    element_load(*s.t, s.pos++, dst, s.elem);
    return;
  }
  if (s.pos < s.first || s.pos >= s.first + s.count) {
    ApiCall api(*c, "read_stream refill");
    s.first = s.pos;
    s.count = std::min<int64_t>(static_cast<int64_t>(npusim::fw::kBufferSizeBytes / s.elem), s.t->numel - s.pos);
    npusim::torchrt::check_header_write(*c, s.buf, npusim::fw::kBufferSizeBytes, s.buf,
                                        static_cast<uint64_t>(s.count) * s.elem,
                                        fmt::format("the 4 KiB buffer of stream {}", slot + 1), "read_stream refill");
    npusim::torchrt::dma_move(*c, s.buf, s.t->hbm + static_cast<uint64_t>(s.pos) * s.elem,
                              static_cast<uint64_t>(s.count) * s.elem, "read_stream_accessor");
  }
  ++c->t.tcm_accesses;
  TimeScope sp(*c, TimeKind::kTcmStack);
  c->core->read(s.buf + static_cast<uint64_t>(s.pos - s.first) * s.elem, dst, s.elem);
  ++s.pos;
}

void stream_write(int slot, const void* src) {
  if (slot >= kHostSlot) {
    auto& h = next_host_stream(slot, "write_stream_accessor", "write");
    std::memcpy(h.t->host.data() + h.pos++ * static_cast<int64_t>(h.elem), src, h.elem);
    return;
  }
  CoreCtx* c = current_ctx();
  if (c == nullptr) throw std::logic_error("a stream accessor used outside the run that opened it");
  npusim::torchrt::charge_kernel_code(*c);  // the kernel's own code up to this access first
  auto& s = next_stream(*c, slot, "write", "a write");
  if (!s.fast) {
    element_store(*s.t, s.pos++, src, s.elem);
    return;
  }
  if (s.count == 0) s.first = s.pos;
  ++c->t.tcm_accesses;
  const uint64_t at = s.buf + static_cast<uint64_t>(s.count) * s.elem;
  npusim::torchrt::check_header_write(*c, s.buf, npusim::fw::kBufferSizeBytes, at, s.elem,
                                      fmt::format("the 4 KiB buffer of stream {}", slot + 1), "write_stream_accessor");
  {
    TimeScope sp(*c, TimeKind::kTcmStack);
    c->core->write(at, src, s.elem);
  }
  ++s.count;
  ++s.pos;
  if (static_cast<uint64_t>(s.count) * s.elem >= npusim::fw::kBufferSizeBytes) {
    ApiCall api(*c, "write_stream flush");
    flush(*c, s, "write_stream_accessor");
  }
}

void stream_close(int slot) {
  if (slot >= kHostSlot) {
    auto& h = host_streams().at(static_cast<size_t>(slot - kHostSlot));
    if (!h.closed) release_access(*h.t, h.write ? AccessKind::kWriteStream : AccessKind::kReadStream);
    h.closed = true;
    return;
  }
  CoreCtx* c = current_ctx();
  if (c == nullptr) return;  // a stream outliving its run
  auto& s = c->streams.at(static_cast<size_t>(slot));
  if (!s.open) return;
  release_access(*s.t, s.write ? AccessKind::kWriteStream : AccessKind::kReadStream);
  if (std::uncaught_exceptions() != 0) {  // the kernel is failing: abandon the stream
    s.open = false;
    return;
  }
  ApiCall api(*c, "close");
  if (s.fast) {
    flush(*c, s, "write_stream_accessor close");
    TimeScope sp(*c, TimeKind::kTcmStack);
    npusim::torchrt::dataram_heap_op(*c, false, c->fw->heaps().neuron_dataram_deallocate(s.buf));
    --c->fast_streams;
    c->tcm_live -= npusim::fw::kBufferSizeBytes;
  }
  s.open = false;
}

void stream_close_at_scope_exit(int slot) noexcept(false) {
  if (std::uncaught_exceptions() == 0) {
    stream_close(slot);  // a fault here propagates and is reported like any other
    return;
  }
  try {
    stream_close(slot);  // abandons the stream: the exception in flight is the report
  } catch (...) {
  }
}

}  // namespace torch::detail
