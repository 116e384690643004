// Every file npusim writes goes through here (docs/architecture.md, "Outputs").
//
// * A regular file, new or existing, is written to a temporary file beside it (beside the file a
//   symlink points to: the link stays) and renamed into place when it is complete, so the
//   destination holds either its old content or the whole new file, never a torn one.
// * A special file (a device such as /dev/stdout or /dev/null, a FIFO) is written directly: it is
//   never removed, truncated or replaced.
// * A directory is never an output.
// * Only the temporary files npusim made itself are ever removed.
// * Every error names the option (or the place in an input that asked for the file), the path
//   as the user gave it and the reason: `--trace: cannot be written: No space left on device
//   (at 'out/t.json')`, an InputError (exit 2).
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/input/input_error.h"

namespace npusim::sim {

struct OutputPath {
  std::string what;   // how the user named it: "--trace", "tensors.yaml:7:3: torch_op output"
  std::string path;   // empty: not requested
  std::string shown;  // what messages call the path, when not `path` itself (a scratch file)
};

// The error of an output: "WHAT: WHY (at 'PATH')" (PATH: `shown` if set).
InputError output_error(const OutputPath& o, const std::string& why);

// The files a command will write, checked before it runs: none is a directory, each folder
// exists and takes a new file, a special file is writable, and no two outputs are the same
// file, so a long run never ends with "cannot write" or with one output overwriting another.
// Nothing is created or changed at any destination. Throws output_error.
void check_output_paths(const std::vector<OutputPath>& outputs);

// Throws output_error if an output is one of the command's input files (`--html run.json`
// with run.json the report it reads): writing it would destroy the input. `inputs` name
// themselves like outputs: {"REPORT", "run.json"}.
void check_outputs_not_inputs(const std::vector<OutputPath>& outputs, const std::vector<OutputPath>& inputs);

// One output file, open for writing (see the top of this file).
class OutputFile {
 public:
  // Opens `o.path` for writing; `mode` is the permission a new file gets (less the umask; an
  // existing file keeps its own). Throws output_error.
  explicit OutputFile(OutputPath o, unsigned mode = 0666);
  // Not committed: the temporary file is removed and the destination is untouched.
  ~OutputFile();
  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&&) = delete;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // The stream being written (nullptr once closed).
  std::FILE* stream() const { return file_; }
  // Writes all of `bytes`. The first error is kept (later writes do nothing) and thrown here
  // and by commit().
  void write(std::string_view bytes);
  // Hands what is written to the OS; throws the first error.
  void flush();
  // Flushes, closes and renames the file into place (a special file: closes it). Throws
  // output_error; the temporary file is then removed and the destination is untouched.
  // Idempotent.
  void commit();
  // Closes without publishing: the temporary file is removed. Idempotent, never throws.
  void discard() noexcept;
  // The file is complete but whether it is published is decided later by the command:
  // publish_parked_outputs() renames it into place, discard_parked_outputs() removes it.
  // For the destructors of writers that end on an exception's way out.
  void park() noexcept;

  const OutputPath& output() const { return out_; }
  // The file being written: the temporary file, or the destination itself when direct().
  // For a program that writes it by name (the compiler of `npusim op build`): close the
  // stream first with release_stream().
  const std::string& writing_path() const { return writing_; }
  void release_stream();
  // A special file, written in place.
  bool direct() const { return direct_; }
  bool failed() const { return !error_.empty(); }

 private:
  OutputFile() = default;
  void fail(int err);
  void close_stream();

  OutputPath out_;
  std::string target_;   // the destination with its symlinks resolved
  std::string writing_;  // temporary file or target_
  std::FILE* file_ = nullptr;
  bool direct_ = false, done_ = false;
  int slot_ = -1;  // in the table of temporary files (remove_temporary_outputs_now)
  std::string error_;
};

// A private folder in the system's temporary folder (TMPDIR, else /tmp) for files a command
// needs on its way to an output (the trace `run --html` draws from): made at construction,
// removed with the files named by file() at destruction.
class ScratchDir {
 public:
  explicit ScratchDir(const OutputPath& for_output);  // throws output_error
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string file(const std::string& name);
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  std::vector<std::string> files_;
};

// Writes `bytes` as the whole content of the output (through an OutputFile). Throws
// output_error.
void write_output(const OutputPath& o, std::string_view bytes, unsigned mode = 0666);

// The outputs parked by writers that ended on an exception's way out (OutputFile::park).
// publish: renames each into place (returns the error messages of those that failed);
// discard: removes each (bad input: nothing ran, so no output may pretend to be a result).
std::vector<std::string> publish_parked_outputs();
void discard_parked_outputs() noexcept;

// Removes every temporary output file of this process that is still open or parked, without
// taking locks or allocating: for a signal handler about to end the process.
void remove_temporary_outputs_now() noexcept;

// Checks what has been written to standard output so far: false (with errno set) if it could
// not be written.
bool standard_output_ok();

}  // namespace npusim::sim
