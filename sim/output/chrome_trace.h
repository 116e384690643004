// A streaming writer of Chrome trace-event JSON (the "JSON Object Format"), which Perfetto UI
// and chrome://tracing open. docs/traces.md describes the file and what its events mean.
//
// Events go to the file as they come, through a bounded buffer: memory stays flat however long
// the run. close() writes the terminator, so the file is valid JSON after close() whenever it is
// called, with or without events. Not thread-safe: one writer thread per trace.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/output/json_escape.h"
#include "sim/output/output_paths.h"
#include "sim/output/trace_arg.h"

namespace npusim::sim {

class ChromeTrace {
 public:
  // Opens the output (sim/output/output_paths.h: a temporary file beside it, renamed into place
  // by close()) and writes the header. Throws InputError naming the option and the path if it
  // cannot be opened.
  explicit ChromeTrace(const OutputPath& out);
  explicit ChromeTrace(const std::string& path);  // named "trace file" in messages
  // close(); errors are swallowed (a destructor must not throw). Destroyed on an exception's
  // way out, the file is completed and parked (OutputFile::park): the command publishes it or,
  // for bad input, removes it.
  ~ChromeTrace();
  ChromeTrace(const ChromeTrace&) = delete;
  ChromeTrace& operator=(const ChromeTrace&) = delete;

  // A track is one (process, thread) row in the viewer. Returns a stable id, the same for the
  // same names. The first time a process or thread is seen its process_name / thread_name and
  // sort-index metadata events are written. `sort_index` orders threads within a process
  // (default: creation order); processes are ordered by creation. A later call with the same
  // names returns the existing id and ignores `sort_index`.
  int track(const std::string& process, const std::string& thread,
            std::optional<int> sort_index = std::nullopt);

  // A complete ("X") event: `name` on `track` from ts_us for dur_us. `args` must be null (no
  // args) or a JSON object. Throws std::invalid_argument for an unknown track, a non-finite
  // time, a negative duration or non-object args.
  void slice(int track, std::string_view name, double ts_us, double dur_us,
             const nlohmann::json& args = {});
  // The same with args written directly (no nlohmann::json): several times cheaper.
  void slice_fast(int track, std::string_view name, double ts_us, double dur_us,
                  std::initializer_list<TraceArg> args);
  // An instant ("i", thread-scoped) event.
  void instant(int track, std::string_view name, double ts_us, const nlohmann::json& args = {});
  void instant_fast(int track, std::string_view name, double ts_us,
                    std::initializer_list<TraceArg> args);
  // An event's name and args rendered once (escaped, in order) for events that repeat: a
  // marker step that runs a million times. Returns an id for instant_label(); the text is
  // kept for the trace's lifetime, so make one label per distinct (name, args).
  int label(std::string_view name, std::initializer_list<TraceArg> args);
  // An instant whose name and args are `label`: the same bytes as instant_fast() with them,
  // without escaping or formatting anything but the time.
  // The time in picoseconds (the observers' unit), written without a double in between.
  void instant_label(int track, uint64_t ts_ps, int label);
  // A counter ("C") event on `process`: one value per series. Values must be finite.
  void counter(const std::string& process, std::string_view name, double ts_us,
               const std::vector<std::pair<std::string, double>>& series);

  // --trace-filter: keep only the tracks (and counters) that match one of `patterns`; none:
  // keep all. A pattern is a glob (`*`, `?`) matched against a track's process name, its
  // thread name and "process/thread", or a counter's process name and counter name. Call
  // before the first track(); tracks dropped by the filter write nothing, not even their name.
  // Throws std::invalid_argument for an empty pattern.
  void set_filter(std::vector<std::string> patterns);
  // The patterns that have matched no track or counter so far.
  std::vector<std::string> unmatched_filters() const;
  // --trace-max-mb: stop adding events once the file would exceed `bytes` (0: no limit). The
  // trace then ends with an instant event saying so on a "trace" track, and otherData
  // records {"truncated": true, "max_bytes", "dropped_events"}.
  void set_max_bytes(uint64_t bytes);
  bool truncated() const { return truncated_; }
  // Events not written because of the size limit, and because of the filter.
  uint64_t dropped_by_limit() const { return dropped_limit_; }
  uint64_t dropped_by_filter() const { return dropped_filter_; }

  // Replaces the "otherData" object written at close(). Must be a JSON object.
  void set_metadata(const nlohmann::json& other_data);

  // Hands everything written so far to the OS. Throws InputError on a write error.
  void flush();
  // Writes the terminator, closes the file and puts it in place. Idempotent. Events after
  // close() are dropped (not counted): close_all_open() may close a trace whose owner still
  // writes to it. A write error stops the writing when it happens (later events are dropped;
  // the run goes on) and close() throws it, an InputError naming the option, the path and the
  // reason; the destination is then untouched and the trace closed anyway.
  void close();

  bool is_open() const { return file_ != nullptr; }
  // Entries written to "traceEvents" so far, metadata events included.
  uint64_t events() const { return events_; }
  const std::string& path() const { return path_; }
  // The file being written until close() puts it in place (a temporary file beside path(), or
  // path() itself for a special file); empty once closed.
  std::string writing_path() const { return out_ ? out_->writing_path() : std::string(); }

  // Closes every live ChromeTrace: for the runner's fatal-error and Ctrl-C paths (after the
  // signal handler has returned; this is not async-signal-safe). Write errors are swallowed.
  static void close_all_open();

 private:
  // Spill the buffer to the FILE* beyond this size: bounded memory, few system calls.
  static constexpr size_t kSpillBytes = 64 * 1024;
  struct Track {
    int pid, tid;
    bool keep;
    // The opening of the track's events up to the time, rendered once:
    std::string slice_head;    // {"ph":"X","pid":P,"tid":T,"ts":
    std::string instant_head;  // {"ph":"i","s":"t","pid":P,"tid":T,"ts":
  };
  int process_id(const std::string& process, bool emit = true);
  // The metadata pair of a process (tid 0) or thread: its "<kind>_name" and "<kind>_sort_index".
  void write_name(const char* kind, int pid, int tid, std::string_view name, int order);
  bool kept(const std::string& process, const std::string& thread) const;
  bool kept_counter(const std::string& process, std::string_view name) const;
  // False (and the event counted as dropped) once the size limit is reached.
  bool admit();
  void begin_event();
  void end_event();
  void write_ts(double us);
  void write_ps(uint64_t ps);  // ps as microseconds with six decimals
  void write_args(const nlohmann::json& args);
  void write_args(std::initializer_list<TraceArg> args);
  static void write_args(fmt::memory_buffer& out, std::initializer_list<TraceArg> args);
  // Validation, filter and size limit shared by the slice/instant variants; false: drop it.
  bool begin_slice(int track, std::string_view name, double ts_us, double dur_us);
  bool begin_instant(int track, std::string_view name, double ts_us);
  void check_track(int track, std::string_view name) const;
  void spill();        // buffer -> file; a write error is kept by out_ and closes file_
  void finish_text();  // the terminator (otherData), then no more events

  std::string path_;
  std::unique_ptr<OutputFile> out_;  // null once closed
  std::FILE* file_ = nullptr;        // out_'s stream while events are written
  int unwinding_ = 0;                // std::uncaught_exceptions() at construction
  fmt::memory_buffer buf_;
  uint64_t events_ = 0;
  int next_id_ = 1;  // pids and tids share one counter so that no tid equals a pid
  std::map<std::string, int> processes_;
  std::map<std::pair<int, std::string>, int> track_ids_;  // (pid, thread) -> track
  std::map<int, int> threads_in_process_;                 // pid -> threads created
  std::vector<Track> tracks_;
  std::vector<std::string> labels_;  // ,"name":"...","args":{...} of label()
  nlohmann::json other_data_ = nlohmann::json::object();
  std::vector<std::string> filter_;
  mutable std::vector<char> filter_used_;  // per pattern: it matched a track or a counter
  std::set<int> named_processes_;  // pids whose metadata is written
  uint64_t max_bytes_ = 0, spilled_ = 0;
  bool truncated_ = false;
  uint64_t dropped_limit_ = 0, dropped_filter_ = 0;
};

}  // namespace npusim::sim
