// Request traces for `npusim traffic` in the formats of other memory simulators: read with
// --trace FILE (replayed through the same generator as a pattern), written with --write-trace
// FILE (the stream a run issued, so the other simulator can be handed the identical stream).
// docs/energy.md, "Traces from other simulators", gives each format with an example.
//
//   dramsim3    DRAMsim3's trace CPU:  0x1F40 READ 120        hex address, READ|WRITE, cycle
//   ramulator   Ramulator's memory-trace mode:  0x1F40 R      hex address, [R|W] (no time; an
//                                                             address alone is a read)
//   ramulator2  Ramulator 2's LoadStoreTrace:  LD 0x1F40      LD|ST, address (no time)
//   stl         DRAMSys's .stl:  120: read 0x1F40             cycle, [(length)], read|write,
//                                                             hex address, [hex data]
//   rstl        DRAMSys's .rstl: the .stl syntax, each cycle counted from the previous request's
//               issue cycle (the first from cycle 0)
//
// Ramulator's and Ramulator 2's instruction traces (bubble count, load address[, store address],
// all decimal) are recognised and refused: they drive a processor model, not a memory.
//
// Addresses are offsets into the memory (its base is added); cycles are the memory's clock
// cycles. Empty lines and lines starting with '#' are skipped in every format.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace npusim::sim {

class OutputFile;

enum class TraceFormat { kDramsim3, kRamulator, kRamulator2, kStl, kRstl };

// "dramsim3", ...; nullopt for anything else.
std::optional<TraceFormat> trace_format_named(const std::string& name);
const char* trace_format_name(TraceFormat f);
// The format a file's name gives: stl for .stl, rstl for .rstl; nullopt for any other name.
std::optional<TraceFormat> trace_format_of_name(const std::string& path);
// The names, for messages and --help: "dramsim3, ramulator, ramulator2, stl, rstl".
const char* trace_format_names();

struct TraceRequest {
  uint64_t offset = 0;        // from the memory's base
  uint64_t cycle = 0;         // earliest issue (memory cycles); 0 without a time. In a
                              // relative trace: cycles after the previous request's issue
  uint32_t size = 0;          // bytes; 0: the run's --size
  bool write = false;
};

struct Trace {
  TraceFormat format = TraceFormat::kDramsim3;
  bool timed = false;  // the format carries cycles (dramsim3, stl, rstl)
  bool relative = false;  // each cycle counts from the previous request's issue (rstl)
  std::vector<TraceRequest> requests;
  std::vector<uint32_t> lines;  // the file line of each request (for later messages)
};

// Reads a whole trace. `format` nullopt: from the file name (.stl, .rstl) or else from the
// shape of its first request line. Throws TrafficError "FILE:LINE: why (at 'VALUE')" for a line that is
// not a request of the format, and for a file that cannot be read, is empty or holds more
// than `max_requests` requests. Cycles must not go back (a later request earlier than the one
// before it is an error: the trace players of these simulators issue in order).
Trace read_trace(const std::string& path, std::optional<TraceFormat> format,
                 uint64_t max_requests = 100'000'000);

// Writes requests one a line as they are issued. Opened before a run (so a path that cannot
// be written fails at once) as an output of sim/output/output_paths.h: written to a temporary
// file and put in place by close(), so the file is complete whenever the run stops (a stop
// signal too) and nothing is left behind by a run that fails.
class TraceWriter {
 public:
  // Throws TrafficError naming the path when it cannot be created. `burst_bytes`: the stl
  // and rstl formats write a request's (length) only when it differs from this. Destroyed without
  // close(): the file is not written.
  TraceWriter(const std::string& path, TraceFormat format, uint64_t burst_bytes);
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;
  // `cycle`: the request's issue cycle (rstl writes it less the previous request's).
  void add(uint64_t offset, bool write, uint64_t cycle, uint64_t size);
  // Flushes, closes and puts the file in place; throws TrafficError if the data could not be
  // written.
  void close();

 private:
  std::unique_ptr<OutputFile> out_;
  std::string path_;
  TraceFormat format_;
  uint64_t burst_bytes_;
  uint64_t prev_cycle_ = 0;  // rstl: the previous request's issue cycle
  std::FILE* f_ = nullptr;
};

}  // namespace npusim::sim
