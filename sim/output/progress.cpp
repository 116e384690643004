#include "sim/output/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cmath>

namespace npusim::sim {

namespace {

constexpr double kTtyInterval = 0.1;   // s between redraws on a terminal
constexpr double kPipeInterval = 1.0;  // s between lines on a pipe
constexpr uint64_t kCheckEvery = 64;   // updates between looks at the clock

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

std::string format_eta(double s) {
  if (!(s >= 0) || !std::isfinite(s)) return "?";
  if (s < 60) return fmt::format("{:.0f} s", std::ceil(s));
  const auto whole = static_cast<uint64_t>(s);
  if (s < 3600) return fmt::format("{} min {} s", whole / 60, whole % 60);
  return fmt::format("{} h {} min", whole / 3600, whole % 3600 / 60);
}

std::string format_sim_time(double ns) {
  if (ns < 1e3) return fmt::format("{:.0f} ns", ns);
  if (ns < 1e6) return fmt::format("{:.3g} us", ns / 1e3);
  if (ns < 1e9) return fmt::format("{:.3g} ms", ns / 1e6);
  return fmt::format("{:.4g} s", ns / 1e9);
}

Progress::Progress(std::string label, Mode mode, std::FILE* out, int tty, Clock clock)
    : label_(std::move(label)), out_(out), clock_(clock ? std::move(clock) : Clock(steady_seconds)) {
  tty_ = tty >= 0 ? tty != 0 : (out_ != nullptr && ::isatty(::fileno(out_)) != 0);
  enabled_ = out_ != nullptr && (mode == Mode::kOn || (mode == Mode::kAuto && tty_));
  if (enabled_) start_ = now_ = last_draw_ = clock_();
}

Progress::~Progress() { finish(); }

void Progress::set_total(uint64_t total, std::string unit) {
  total_ = total;
  unit_ = std::move(unit);
}

void Progress::update(uint64_t done, double sim_ns) {
  done_ = done;
  sim_ns_ = sim_ns;
  if (!enabled_ || finished_ || ++calls_ % kCheckEvery != 1) return;
  now_ = clock_();
  if (now_ - last_draw_ >= (tty_ ? kTtyInterval : kPipeInterval)) draw(false);
}

std::string Progress::line() const {
  const double elapsed = now_ - start_;
  std::string s = label_ + ": ";
  if (total_ > 0) {
    const double f = std::min(1.0, static_cast<double>(done_) / static_cast<double>(total_));
    s += fmt::format("{:3.0f}% ({}/{} {})", std::floor(f * 100), done_, total_, unit_);
    if (done_ > 0 && done_ < total_)
      s += ", ETA " + format_eta(elapsed * static_cast<double>(total_ - done_) / static_cast<double>(done_));
  } else if (!unit_.empty() || done_ > 0) {
    s += fmt::format("{} {}", done_, unit_.empty() ? "done" : unit_);
  }
  if (sim_ns_ >= 0) s += (total_ > 0 || done_ > 0 ? ", simulated " : "simulated ") + format_sim_time(sim_ns_);
  s += fmt::format(" [{:.1f} s]", elapsed);
  return s;
}

void Progress::draw(bool final) {
  last_draw_ = now_;
  drawn_ = true;
  const std::string l = line();
  // \r and "erase to end of line" redraw in place on a terminal; a pipe gets whole lines.
  if (tty_) std::fprintf(out_, "\r%s\x1b[K%s", l.c_str(), final ? "\n" : "");
  else std::fprintf(out_, "%s\n", l.c_str());
  std::fflush(out_);
}

void Progress::finish() {
  if (!enabled_ || finished_) return;
  finished_ = true;
  now_ = clock_();
  // A command that ended before the first redraw leaves no line behind on a terminal.
  if (tty_ && !drawn_) return;
  draw(true);
}

}  // namespace npusim::sim
