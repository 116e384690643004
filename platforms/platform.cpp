#include "platforms/platform.h"

#include <fmt/format.h>

#include <stdexcept>

#include "platforms/bind.h"

namespace npusim::platforms {

struct Platform::Instance {
  std::string name;
  const Component* comp = nullptr;
  uint32_t g = 0, i = 0;
  std::unique_ptr<models::Core> core;
  std::unique_ptr<models::Sram> sram;
  std::unique_ptr<models::Hbm> hbm;
  std::unique_ptr<models::Tcdm> tcdm;
  std::unique_ptr<models::DmaEngine> dma;
  std::unique_ptr<models::Interconnect> ic;
  std::vector<const Instance*> targets;  // interconnect: bound to `mem`, in order
};

namespace {

template <class Map>
const typename Map::mapped_type& param(const Map& m, const Component& c) {
  const auto it = m.find(c.config);
  if (it == m.end())
    throw std::invalid_argument(fmt::format("platform component '{}' ({}): no parameter section '{}'",
                                            c.name, kind_name(c.kind), c.config));
  return it->second;
}

}  // namespace

Platform::Platform(sc_core::sc_module_name name, const Topology& topology, const Parameters& params)
    : sc_core::sc_module(name), topo_(topology) {
  // Components in list order; a run of consecutive components of one group is built once
  // per group instance (cluster 0's members, then cluster 1's, ...).
  const auto& cs = topo_.components;
  for (size_t k = 0; k < cs.size();) {
    size_t end = k + 1;
    if (!cs[k].group.empty())
      while (end < cs.size() && cs[end].group == cs[k].group) ++end;
    uint32_t groups = 1;
    if (!cs[k].group.empty()) {
      bool found = false;
      for (const auto& gr : topo_.groups)
        if (gr.name == cs[k].group) groups = gr.count, found = true;
      if (!found)
        throw std::invalid_argument(fmt::format("platform component '{}': no group '{}'", cs[k].name, cs[k].group));
    }
    for (uint32_t g = 0; g < groups; ++g)
      for (size_t j = k; j < end; ++j) build_component(cs[j], g, params);
    k = end;
  }
  bind_all();
  add_regions();
}

Platform::~Platform() = default;

void Platform::build_component(const Component& c, uint32_t g, const Parameters& p) {
  for (uint32_t i = 0; i < c.count; ++i) {
    auto x = std::make_unique<Instance>();
    x->name = instance_name(c.name, g, i);
    x->comp = &c;
    x->g = g;
    x->i = i;
    if (by_name_.count(x->name))
      throw std::invalid_argument(fmt::format("platform: two components named '{}'", x->name));
    const char* n = x->name.c_str();
    switch (c.kind) {
      case Kind::kCore:
        x->core = std::make_unique<models::Core>(n, param(p.cores, c));
        cores_.push_back(x->core.get());
        break;
      case Kind::kSram: {
        const auto& cfg = param(p.srams, c);
        x->sram = std::make_unique<models::Sram>(n, cfg);
        memories_.push_back(MemoryRef{x->name, c.kind, x->sram.get(), cfg.clock_ns, &x->sram->stats()});
        break;
      }
      case Kind::kHbm: {
        const auto& cfg = param(p.hbms, c);
        x->hbm = std::make_unique<models::Hbm>(n, cfg);
        memories_.push_back(MemoryRef{x->name, c.kind, x->hbm.get(), cfg.tck_ns, &x->hbm->stats()});
        break;
      }
      case Kind::kTcdm: {
        const auto& cfg = param(p.tcdms, c);
        x->tcdm = std::make_unique<models::Tcdm>(n, cfg);
        memories_.push_back(MemoryRef{x->name, c.kind, x->tcdm.get(), cfg.clock_ns, nullptr});
        break;
      }
      case Kind::kDma:
        x->dma = std::make_unique<models::DmaEngine>(n, param(p.dmas, c));
        if (c.dma_inline) x->dma->set_inline_execution(true);
        dmas_.push_back(x->dma.get());
        break;
      case Kind::kInterconnect:
        x->ic = std::make_unique<models::Interconnect>(n, param(p.interconnects, c));
        ics_.push_back(x->ic.get());
        break;
    }
    by_name_[x->name] = x.get();
    instances_.push_back(std::move(x));
  }
}

Platform::Instance& Platform::find(const std::string& name) const {
  const auto it = by_name_.find(name);
  if (it == by_name_.end())
    throw std::out_of_range(fmt::format("platform '{}' has no component '{}'", basename(), name));
  return *it->second;
}

void Platform::bind_all() {
  auto instances_of = [this](const std::string& pattern) {
    std::vector<Instance*> v;
    for (auto& x : instances_)
      if (x->comp->name == pattern) v.push_back(x.get());
    if (v.empty()) v.push_back(&find(pattern));
    return v;
  };
  auto bind_pair = [this](Instance& f, Instance& t) {
    const std::string what = f.name + " -> " + t.name;
    auto to_target = [&](auto& socket) {
      // A memory's checker knows the addresses its binding carries: [0, size). Qualified:
      // an unqualified bind() would find std::bind by ADL.
      auto to_memory = [&](auto& bus, uint64_t size) {
        models::ProtocolCheckConfig c;
        c.map_last = size - 1;
        platforms::bind(socket, bus, what, checkers_, c);
      };
      if (t.ic) platforms::bind(socket, t.ic->bus, what, checkers_);
      else if (t.sram) to_memory(t.sram->bus, t.sram->config().size);
      else if (t.hbm) to_memory(t.hbm->bus, t.hbm->config().size());
      else if (t.tcdm) to_memory(t.tcdm->bus, t.tcdm->config().size);
      else throw std::invalid_argument("platform binding " + what + ": the target is not a memory or an interconnect");
    };
    if (f.core) to_target(f.core->bus);
    else if (f.dma) to_target(f.dma->bus);
    else if (f.ic) {
      to_target(f.ic->mem);
      f.targets.push_back(&t);
    } else {
      throw std::invalid_argument("platform binding " + what + ": the initiator is not a core, DMA engine or interconnect");
    }
  };
  for (const auto& b : topo_.bindings) {
    const auto from = instances_of(b.from);
    const auto to = instances_of(b.to);
    if (from.size() > 1 || b.from.find('{') != std::string::npos) {
      for (Instance* f : from) bind_pair(*f, find(instance_name(b.to, f->g, f->i)));
    } else {
      for (Instance* t : to) bind_pair(*from[0], *t);
    }
  }
}

void Platform::add_regions() {
  auto instances_of = [this](const std::string& pattern) {
    std::vector<Instance*> v;
    for (auto& x : instances_)
      if (x->comp->name == pattern) v.push_back(x.get());
    return v;
  };
  for (const auto& r : topo_.regions) {
    // The pairs (interconnect, target): per instance of the replicated side, substituting its
    // {g} and {i} into the other side.
    std::vector<std::pair<Instance*, Instance*>> pairs;
    const auto ons = instances_of(r.on);
    if (ons.size() > 1) {
      for (Instance* on : ons) pairs.emplace_back(on, &find(instance_name(r.to, on->g, on->i)));
    } else {
      auto tos = instances_of(r.to);
      if (tos.empty()) tos.push_back(&find(r.to));
      for (Instance* t : tos) pairs.emplace_back(&find(instance_name(r.on, t->g, t->i)), t);
    }
    for (auto [onp, t] : pairs) {
      Instance& on = *onp;
      if (!on.ic) throw std::invalid_argument(fmt::format("platform region '{}': '{}' is not an interconnect", r.name, on.name));
      unsigned index = 0;
      while (index < on.targets.size() && on.targets[index] != t) ++index;
      if (index == on.targets.size())
        throw std::invalid_argument(fmt::format("platform region '{}': '{}' is not bound to '{}'", r.name, t->name, on.name));
      uint64_t base = 0, size = 0, offset = r.target_offset;
      if (t->sram) base = t->sram->config().base, size = t->sram->config().size;
      if (t->hbm) base = t->hbm->config().base, size = t->hbm->config().size();
      if (t->tcdm) size = t->tcdm->config().size;
      if (r.window) {
        if (!t->hbm) throw std::invalid_argument(fmt::format("platform region '{}': a window maps an HBM", r.name));
        const auto& h = t->hbm->config();
        if (h.window_size == 0) continue;  // no window configured
        base = h.window_base;
        size = h.window_size;
        offset = h.window_target - h.base;
      }
      if (r.base) base = *r.base;
      if (r.size) size = *r.size;
      if (size == 0)
        throw std::invalid_argument(fmt::format("platform region '{}' on '{}': give its size (the target '{}' is not a memory)",
                                                r.name, on.name, t->name));
      const Instance& rep = ons.size() > 1 ? on : *t;  // the replicated side
      const uint64_t k = rep.comp->group.empty() ? rep.i : rep.g;
      on.ic->add_region(instance_name(r.name, rep.g, rep.i), base + r.stride * k, size, index,
                        offset + r.target_stride * k);
    }
  }
}

models::Core& Platform::core(const std::string& n) const {
  auto& x = find(n);
  if (!x.core) throw std::out_of_range(fmt::format("platform component '{}' is not a core", n));
  return *x.core;
}
models::DmaEngine& Platform::dma(const std::string& n) const {
  auto& x = find(n);
  if (!x.dma) throw std::out_of_range(fmt::format("platform component '{}' is not a DMA engine", n));
  return *x.dma;
}
models::Interconnect& Platform::interconnect(const std::string& n) const {
  auto& x = find(n);
  if (!x.ic) throw std::out_of_range(fmt::format("platform component '{}' is not an interconnect", n));
  return *x.ic;
}
models::Sram& Platform::sram(const std::string& n) const {
  auto& x = find(n);
  if (!x.sram) throw std::out_of_range(fmt::format("platform component '{}' is not an SRAM", n));
  return *x.sram;
}
models::Hbm& Platform::hbm(const std::string& n) const {
  auto& x = find(n);
  if (!x.hbm) throw std::out_of_range(fmt::format("platform component '{}' is not an HBM", n));
  return *x.hbm;
}
models::Tcdm& Platform::tcdm(const std::string& n) const {
  auto& x = find(n);
  if (!x.tcdm) throw std::out_of_range(fmt::format("platform component '{}' is not a TCDM", n));
  return *x.tcdm;
}

}  // namespace npusim::platforms
