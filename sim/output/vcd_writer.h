// A Value Change Dump (IEEE 1364 VCD) writer for GTKWave and other waveform viewers.
// docs/traces.md describes the file.
//
// Declare every signal first, then report values in non-decreasing time. The header is written
// at the first change (or at close()); a value is written only when it differs from the last one
// and a `#time` line only when time has advanced. Timescale: 1 ps. Not thread-safe.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "sim/output/output_paths.h"

namespace npusim::sim {

class VcdWriter {
 public:
  // A declared signal.
  struct Signal {
    int index = -1;
  };

  // Opens the output (sim/output/output_paths.h: a temporary file beside it, renamed into place
  // by close()). Throws InputError naming the option and the path if it cannot.
  explicit VcdWriter(const OutputPath& out);
  explicit VcdWriter(const std::string& path);  // named "VCD file" in messages
  // close(); errors are swallowed. On an exception's way out the file is completed and
  // parked (OutputFile::park): the command publishes it or, for bad input, removes it.
  ~VcdWriter();
  VcdWriter(const VcdWriter&) = delete;
  VcdWriter& operator=(const VcdWriter&) = delete;

  // Declarations. `name` is dotted: "heaps.dataram.free_bytes" is the variable free_bytes in
  // scope dataram inside scope heaps; a name without a dot sits at the top level. Names are
  // unique; parts are non-empty and hold no whitespace. Throws std::invalid_argument for a bad
  // or duplicate name or width, std::logic_error once the header has been written.
  Signal integer(const std::string& name, unsigned width);  // `reg [width-1:0]`, 1..64 bits;
                                                            // starts unknown (x)
  Signal wire(const std::string& name);                     // 1-bit `wire`; starts unknown (x)
  Signal real(const std::string& name);  // `real`; starts at 0 (VCD has no unknown real)

  // Reports `value` for `s` at `time_ps`. Integer and wire signals take integral values:
  // negative ones are written in two's complement; a value that does not fit the width, or a
  // floating-point value, throws std::invalid_argument naming the signal. Real signals take
  // any arithmetic value. Throws std::logic_error naming the signal and both times if
  // `time_ps` is before the latest time reported. Changes after close() are dropped.
  template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  void change(uint64_t time_ps, Signal s, T value) {
    if constexpr (std::is_floating_point_v<T>) {
      change_real(time_ps, s, static_cast<double>(value));
    } else if constexpr (std::is_same_v<T, bool>) {
      change_bits(time_ps, s, value ? 1 : 0, false);
    } else if constexpr (std::is_signed_v<T>) {
      change_bits(time_ps, s, static_cast<uint64_t>(static_cast<int64_t>(value)), value < 0);
    } else {
      change_bits(time_ps, s, static_cast<uint64_t>(value), false);
    }
  }

  // A simulated time in picoseconds given as a double, rounded to the nearest picosecond.
  // Throws std::invalid_argument if it is negative or not finite.
  static uint64_t ps(double time_ps);

  void flush();
  // Writes the header if it was not yet written, a final `#end_time_ps` line if given (so
  // viewers show the last values until then), closes the file and puts it in place.
  // Idempotent. A write error stops the writing when it happens (later changes are dropped)
  // and close() throws it, an InputError naming the option, the path and the reason (the file
  // is closed anyway, the destination untouched); std::logic_error if end_time_ps is before
  // the latest time reported.
  void close(std::optional<uint64_t> end_time_ps = std::nullopt);
  bool is_open() const { return file_ != nullptr; }
  // Value changes written so far (the initial $dumpvars values not counted).
  uint64_t changes() const { return changes_; }

  // Closes every live VcdWriter (runner's fatal-error and Ctrl-C paths; not signal-safe).
  static void close_all_open();

 private:
  enum class Kind { kInteger, kWire, kReal };
  struct Var {
    std::string name;  // full dotted name
    Kind kind;
    unsigned width;
    std::string id;      // VCD identifier code
    bool known = false;  // a value was written (integers and wires start unknown)
    uint64_t bits = 0;   // last value (reals: the double's bit pattern)
  };
  Signal declare(const std::string& name, Kind kind, unsigned width);
  const Var& var(Signal s) const;
  void change_bits(uint64_t time_ps, Signal s, uint64_t value, bool negative);
  void change_real(uint64_t time_ps, Signal s, double value);
  void advance(uint64_t time_ps, const Var& v);  // ordering check and `#time` when needed
  void write_header();
  void spill();  // buffer -> file; a write error is kept by out_ and closes file_
  void finish_text(std::optional<uint64_t> end_time_ps);

  std::string path_;
  std::unique_ptr<OutputFile> out_;  // null once closed
  std::FILE* file_ = nullptr;        // out_'s stream while changes are written
  int unwinding_ = 0;                // std::uncaught_exceptions() at construction
  fmt::memory_buffer buf_;
  std::vector<Var> vars_;
  std::map<std::string, int> by_name_;
  bool header_written_ = false;
  uint64_t now_ps_ = 0;                   // latest time reported
  std::optional<uint64_t> written_time_;  // latest `#time` line
  uint64_t changes_ = 0;
};

}  // namespace npusim::sim
