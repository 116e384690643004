// Progress of a long command on stderr (npusim run, traffic, heap replay).
//
// On a terminal: one line, redrawn in place at most every 100 ms, with the percentage and the
// estimated time left when the total is known, the simulated time otherwise. On a pipe or a
// file: nothing, unless asked for (--progress), and then a plain line at most once a second.
// finish() ends the line. Cheap enough to call on every step: it looks at the clock only
// every `check_every` updates.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

namespace npusim::sim {

class Progress {
 public:
  enum class Mode {
    kAuto,  // shown on a terminal only
    kOn,    // --progress: shown on a pipe too
    kOff,
  };
  using Clock = std::function<double()>;  // seconds, monotonic

  // `out` is where the line goes (stderr); `tty` says whether it is a terminal (default: ask
  // isatty). `clock` is the wall clock (default: steady_clock).
  Progress(std::string label, Mode mode, std::FILE* out = stderr, int tty = -1, Clock clock = {});
  ~Progress();  // finish()
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  bool enabled() const { return enabled_; }
  // A known amount of work ("steps", "ops", "requests"); 0: unknown.
  void set_total(uint64_t total, std::string unit);
  // `done` units of work so far, and the simulated time in ns (< 0: not known).
  void update(uint64_t done, double sim_ns = -1);
  // Draws the last state and ends the line (a terminal's line is cleared). Idempotent.
  void finish();

  // The text of the line for the current state, without \r or newline (for tests and logs).
  std::string line() const;

 private:
  void draw(bool final);

  std::string label_;
  std::FILE* out_;
  bool tty_ = false, enabled_ = false, finished_ = false, drawn_ = false;
  Clock clock_;
  double start_ = 0, last_draw_ = -1e300, now_ = 0;
  uint64_t total_ = 0, done_ = 0, calls_ = 0;
  double sim_ns_ = -1;
  std::string unit_;
};

// "1.2 s", "3 min 4 s", "2 h 5 min".
std::string format_eta(double seconds);
// "12.3 us", "4.56 ms", "1.2 s" of simulated time.
std::string format_sim_time(double ns);

}  // namespace npusim::sim
