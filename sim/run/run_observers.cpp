#include "sim/run/run_observers.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "sim/output/chrome_trace.h"
#include "sim/output/vcd_writer.h"

namespace npusim::sim {

namespace {

double us(uint64_t ps) { return static_cast<double>(ps) / 1e6; }

// Chrome trace-event JSON (docs/traces.md): a track per core, per DMA channel and for faults,
// counters per heap.
class ChromeObserver : public RunObserver {
 public:
  explicit ChromeObserver(const RunOptions& opt)
      : t_(opt.trace_output()), outcome_(opt.trace_outcome), errors_(opt.output_errors) {
    t_.set_filter(opt.trace_filter);
    t_.set_max_bytes(opt.trace_max_bytes);
    core_ = t_.track("mgmt_core", "firmware calls", 0);
    activity_ = t_.track("mgmt_core", "activity", 1);
    faults_ = t_.track("faults", "faults and violations", 0);
  }
  void call(const std::string& core, const std::string& name, const std::string& args, uint64_t s,
            uint64_t e, int status) override {
    // Other cores than the management core (the GPSIMD cores of torch_op runs): their own track.
    const int track = core == "mgmt_core" ? core_ : t_.track(core, "calls", 0);
    // Args written directly (TraceArg), in the key order nlohmann::json used to write.
    t_.slice_fast(track, name, us(s), us(e - std::min(s, e)),
                  {TraceArg::str("args", args), TraceArg::integer("status", status)});
  }
  void transfer(uint32_t ch, uint64_t src, uint64_t dst, uint64_t len, const std::string& site,
                uint64_t s, uint64_t e) override {
    if (ch >= channels_.size()) channels_.resize(ch + 1, -1);
    if (channels_[ch] < 0) channels_[ch] = t_.track("dma", fmt::format("channel {}", ch), static_cast<int>(ch));
    char name[32];
    const auto n = fmt::format_to_n(name, sizeof name, "{} B", len);
    t_.slice_fast(channels_[ch], std::string_view(name, n.size), us(s), us(e - std::min(s, e)),
                  {TraceArg::str("call_site", site), TraceArg::hex("dst", dst), TraceArg::uint("len", len),
                   TraceArg::hex("src", src)});
  }
  void heap(const std::string& heap, uint64_t t, uint64_t free_bytes, uint64_t largest,
            uint64_t descriptors) override {
    t_.counter("heaps", heap + " bytes", us(t),
               {{"free_bytes", static_cast<double>(free_bytes)},
                {"largest_free", static_cast<double>(largest)}});
    t_.counter("heaps", heap + " descriptors used", us(t),
               {{"descriptors", static_cast<double>(descriptors)}});
  }
  void core_busy(const std::string& core, uint64_t t, bool busy) override {
    if (core != "mgmt_core") {
      if (busy) {
        other_busy_[core] = t;
      } else if (auto it = other_busy_.find(core); it != other_busy_.end()) {
        t_.slice(t_.track(core, "activity", 1), "busy", us(it->second), us(t - std::min(it->second, t)));
        other_busy_.erase(it);
      }
      return;
    }
    if (busy) {
      busy_since_ = t;
    } else if (busy_since_) {
      t_.slice(activity_, "busy", us(*busy_since_), us(t - std::min(*busy_since_, t)));
      busy_since_.reset();
    }
  }
  void instant(const std::string& track, const std::string& name, uint64_t t,
               const nlohmann::json& args) override {
    // "heaps" and "memories" carry the HTML report's heap blocks and latency distributions.
    const int row = track == "faults"     ? faults_
                    : track == "heaps"    ? t_.track("heaps", "blocks", 0)
                    : track == "memories" ? t_.track("memories", "latency", 0)
                                          : core_;
    t_.instant(row, name, us(t), args.is_object() ? args : nlohmann::json{});
  }
  void marker(const std::string&, const Step& step, uint64_t t) override {
    // On the firmware-calls row, as instant() puts it. Name and args are rendered once per
    // marker step; each run of it writes only its time.
    if (&step != last_marker_) {  // a loop runs the same step again and again
      auto it = markers_.find(&step);
      if (it == markers_.end()) {
        const std::string at = step.at.str();
        it = markers_.emplace(&step, t_.label(step.text, {TraceArg::str("step", at)})).first;
      }
      last_marker_ = &step, last_label_ = it->second;
    }
    t_.instant_label(core_, t, last_label_);
  }
  void memory_bandwidth(const std::string& memory, uint64_t window_ps,
                        const std::vector<uint64_t>& bytes) override {
    // One counter track per memory: GB/s in each window (bytes per ns).
    for (size_t i = 0; i < bytes.size(); ++i)
      t_.counter("memories", memory + " bandwidth", us(i * window_ps),
                 {{"GB/s", static_cast<double>(bytes[i]) / (static_cast<double>(window_ps) / 1e3)}});
    if (!bytes.empty())
      t_.counter("memories", memory + " bandwidth", us(bytes.size() * window_ps), {{"GB/s", 0.0}});
  }
  void finish(uint64_t end) override {
    if (busy_since_) core_busy("mgmt_core", end, false);
    t_.set_metadata(nlohmann::json{{"generator", "npusim"}, {"end_us", us(end)}});
    if (outcome_) *outcome_ = {t_.truncated(), t_.dropped_by_limit(), t_.dropped_by_filter(), t_.unmatched_filters()};
    try {
      t_.close();
    } catch (const InputError& e) {  // a write error: the run's other outputs go on
      errors_->push_back(e.what());
    }
  }

 private:
  ChromeTrace t_;
  std::shared_ptr<RunOptions::TraceOutcome> outcome_;
  std::shared_ptr<std::vector<std::string>> errors_;
  std::vector<int> channels_;  // DMA channel -> track
  int core_, activity_, faults_;
  std::optional<uint64_t> busy_since_;
  std::map<std::string, uint64_t> other_busy_;
  std::unordered_map<const Step*, int> markers_;  // marker step -> ChromeTrace::label
  const Step* last_marker_ = nullptr;
  int last_label_ = -1;
};

// VCD waveforms: the same counters and busy signals. Observations arrive slightly out of
// time order (the core runs ahead of the kernel within its quantum): they are sorted at the end.
class VcdObserver : public RunObserver {
 public:
  explicit VcdObserver(const RunOptions& opt) : v_(opt.vcd_output()), errors_(opt.output_errors) {}
  void call(const std::string&, const std::string&, const std::string&, uint64_t, uint64_t, int) override {}
  void transfer(uint32_t ch, uint64_t, uint64_t, uint64_t, const std::string&, uint64_t s,
                uint64_t e) override {
    const std::string n = fmt::format("dma.channel{}.busy", ch);
    add(s, n, 1);
    add(e, n, 0);
  }
  void heap(const std::string& heap, uint64_t t, uint64_t free_bytes, uint64_t largest,
            uint64_t descriptors) override {
    add(t, "heaps." + heap + ".free_bytes", free_bytes);
    add(t, "heaps." + heap + ".largest_free", largest);
    add(t, "heaps." + heap + ".descriptors_used", descriptors);
  }
  void core_busy(const std::string& core, uint64_t t, bool busy) override {
    add(t, "cores." + core + ".busy", busy ? 1 : 0);
  }
  void instant(const std::string& track, const std::string&, uint64_t t, const nlohmann::json&) override {
    if (track == "faults") add(t, "faults.count", ++faults_);
  }
  void marker(const std::string&, const Step&, uint64_t) override {}  // no signal of its own
  void memory_bandwidth(const std::string& memory, uint64_t window_ps,
                        const std::vector<uint64_t>& bytes) override {
    for (size_t i = 0; i < bytes.size(); ++i) add(i * window_ps, "memories." + memory + ".bytes_per_window", bytes[i]);
  }
  void finish(uint64_t end) override {
    std::map<std::string, VcdWriter::Signal> sig;
    for (const auto& c : changes_) {
      if (sig.count(c.name)) continue;
      const bool bit = c.name.size() > 5 && c.name.compare(c.name.size() - 5, 5, ".busy") == 0;
      sig[c.name] = bit ? v_.wire(c.name) : v_.integer(c.name, 32);
    }
    std::stable_sort(changes_.begin(), changes_.end(),
                     [](const Change& a, const Change& b) { return a.t < b.t; });
    for (const auto& c : changes_) v_.change(c.t, sig.at(c.name), c.value);
    try {
      v_.close(end);
    } catch (const InputError& e) {  // a write error: the run's other outputs go on
      errors_->push_back(e.what());
    }
  }

 private:
  struct Change {
    uint64_t t;
    std::string name;
    uint64_t value;
  };
  void add(uint64_t t, std::string name, uint64_t value) {
    changes_.push_back(Change{t, std::move(name), std::min<uint64_t>(value, 0xffffffffu)});
  }
  VcdWriter v_;
  std::shared_ptr<std::vector<std::string>> errors_;
  std::vector<Change> changes_;
  uint64_t faults_ = 0;
};

}  // namespace

std::vector<std::unique_ptr<RunObserver>> make_observers(const RunOptions& opt) {
  std::vector<std::unique_ptr<RunObserver>> v;
  if (!opt.trace_path.empty()) v.push_back(std::make_unique<ChromeObserver>(opt));
  if (!opt.vcd_path.empty()) v.push_back(std::make_unique<VcdObserver>(opt));
  return v;
}

}  // namespace npusim::sim
