#include "sim/output/output_paths.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <system_error>

namespace npusim::sim {

namespace fs = std::filesystem;

namespace {

std::string reason(int err) { return err ? std::strerror(err) : "unknown reason"; }

std::string folder_of(const std::string& p) {
  const std::string f = fs::path(p).parent_path().string();
  return f.empty() ? "." : f;
}

// The file `path` names once its symlinks are followed (a dangling link: the file it would
// create). Returns an empty string and sets `err` if the chain cannot be followed.
std::string resolve(const std::string& path, int& err) {
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) {
      if (errno == ENOENT) return p;
      err = errno;
      return {};
    }
    if (!S_ISLNK(st.st_mode)) return p;
    std::string target(PATH_MAX, '\0');
    const ssize_t n = ::readlink(p.c_str(), target.data(), target.size());
    if (n < 0) {
      err = errno;
      return {};
    }
    target.resize(static_cast<size_t>(n));
    p = !target.empty() && target[0] == '/' ? target : (fs::path(folder_of(p)) / target).string();
  }
  err = ELOOP;
  return {};
}

// What a destination is, once its symlinks are followed.
enum class PathKind { kNew, kRegular, kDirectory, kSpecial };

struct Dest {
  std::string target;
  PathKind kind = PathKind::kNew;
  struct stat st {};
};

// Throws output_error for a destination that can never be an output file.
Dest classify(const OutputPath& o) {
  Dest d;
  // A special file first, by the kernel's own lookup: /dev/stdout is a link to a pipe or a
  // terminal that no path names (/proc/self/fd/1 -> "pipe:[…]").
  if (::stat(o.path.c_str(), &d.st) == 0 && !S_ISREG(d.st.st_mode) && !S_ISDIR(d.st.st_mode)) {
    d.target = o.path;
    d.kind = PathKind::kSpecial;
    return d;
  }
  int err = 0;
  d.target = resolve(o.path, err);
  if (d.target.empty()) throw output_error(o, "cannot be written: " + reason(err));
  if (::stat(d.target.c_str(), &d.st) == 0) {
    if (S_ISDIR(d.st.st_mode)) throw output_error(o, "is a directory, not a file");
    d.kind = S_ISREG(d.st.st_mode) ? PathKind::kRegular : PathKind::kSpecial;
    return d;
  }
  if (errno != ENOENT) throw output_error(o, "cannot be written: " + reason(errno));
  const std::string folder = folder_of(d.target);
  struct stat fst {};
  if (::stat(folder.c_str(), &fst) != 0)
    throw output_error(o, errno == ENOENT ? fmt::format("cannot be written: the folder '{}' does not exist", folder)
                                          : "cannot be written: " + reason(errno));
  if (!S_ISDIR(fst.st_mode)) throw output_error(o, fmt::format("cannot be written: '{}' is not a folder", folder));
  return d;
}

mode_t process_umask() {
  static const mode_t m = [] {
    std::ifstream in("/proc/self/status");
    for (std::string line; std::getline(in, line);)
      if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8));
    return static_cast<mode_t>(022);
  }();
  return m;
}

// Temporary files of this process, for remove_temporary_outputs_now(): fixed slots, so a
// signal handler can walk them without locks or allocation.
constexpr int kSlots = 64;
struct Slot {
  std::atomic<bool> used{false};
  char path[PATH_MAX];
};
Slot g_slots[kSlots];

int claim_slot(const std::string& path) {
  if (path.size() >= PATH_MAX) return -1;
  for (int i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (g_slots[i].used.load() || !g_slots[i].used.compare_exchange_strong(expected, true)) continue;
    // Written while `used` is true but before the path is complete: a handler may unlink a
    // prefix that names nothing of ours only if it is a file's whole name; write the path
    // first into a cleared buffer.
    std::memset(g_slots[i].path, 0, PATH_MAX);
    std::memcpy(g_slots[i].path, path.c_str(), path.size());
    return i;
  }
  return -1;
}

void release_slot(int i) {
  if (i >= 0) g_slots[i].used.store(false);
}

// A temporary file beside `target`: ".NAME.npusim-XXXXXX". Returns the fd, sets `tmp`.
int make_temp_beside(const std::string& target, std::string& tmp) {
  std::string name = fs::path(target).filename().string();
  if (name.size() > 200) name = name.substr(0, 200);
  tmp = (fs::path(folder_of(target)) / ("." + name + ".npusim-XXXXXX")).string();
  return ::mkostemp(tmp.data(), O_CLOEXEC);
}

struct Parked {
  std::string tmp, target;
  OutputPath out;
  int slot;
};
std::mutex g_parked_mu;
std::vector<Parked> g_parked;

}  // namespace

InputError output_error(const OutputPath& o, const std::string& why) {
  return InputError(o.what, 0, o.shown.empty() ? o.path : o.shown, why);
}

namespace {

// The same file (for two outputs naming one file): absolute, `.`, `..` and the symlinks of
// the existing part resolved.
std::string identity(const std::string& p) {
  std::error_code ec;
  const fs::path c = fs::weakly_canonical(fs::absolute(p, ec), ec);
  return ec ? p : c.string();
}

}  // namespace

void check_output_paths(const std::vector<OutputPath>& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const OutputPath& o = outputs[i];
    if (o.path.empty()) continue;
    for (size_t j = 0; j < i; ++j)
      if (!outputs[j].path.empty() && identity(outputs[j].path) == identity(o.path))
        throw output_error(o, fmt::format("the same file as {}: one output would overwrite the other",
                                          outputs[j].what));
    const Dest d = classify(o);
    if (d.kind == PathKind::kSpecial) {
      // Written in place: it must take writes (a FIFO is not opened here: that would wait
      // for its reader).
      if (::access(d.target.c_str(), W_OK) != 0) throw output_error(o, "cannot be written: " + reason(errno));
      continue;
    }
    // The folder must take the temporary file the output is written to: make one, remove it.
    std::string tmp;
    const int fd = make_temp_beside(d.target, tmp);
    if (fd < 0) {
      const int err = errno;
      if (d.kind == PathKind::kRegular && (err == EACCES || err == EPERM) && ::access(d.target.c_str(), W_OK) == 0)
        throw output_error(o, fmt::format("cannot be written: {}: its folder must be writable (npusim writes a new "
                                          "file beside it and renames it into place)", reason(err)));
      throw output_error(o, "cannot be written: " + reason(err));
    }
    ::close(fd);
    ::unlink(tmp.c_str());
  }
}

void check_outputs_not_inputs(const std::vector<OutputPath>& outputs, const std::vector<OutputPath>& inputs) {
  for (const auto& o : outputs) {
    if (o.path.empty()) continue;
    for (const auto& i : inputs)
      if (!i.path.empty() && fs::exists(i.path) && identity(i.path) == identity(o.path))
        throw output_error(o, fmt::format("the same file as the input {} ('{}'): writing it would destroy the input",
                                          i.what, i.path));
  }
}

OutputFile::OutputFile(OutputPath o, unsigned mode) : out_(std::move(o)) {
  const Dest d = classify(out_);
  target_ = d.target;
  if (d.kind == PathKind::kSpecial) {
    const int fd = ::open(target_.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) throw output_error(out_, "cannot be written: " + reason(errno));
    direct_ = true;
    writing_ = target_;
    file_ = ::fdopen(fd, "wb");
    if (file_ == nullptr) {
      const int err = errno;
      ::close(fd);
      throw output_error(out_, "cannot be written: " + reason(err));
    }
    return;
  }
  const int fd = make_temp_beside(target_, writing_);
  if (fd < 0) {
    const int err = errno;
    if (d.kind == PathKind::kRegular && (err == EACCES || err == EPERM) && ::access(target_.c_str(), W_OK) == 0)
      throw output_error(out_, fmt::format("cannot be written: {}: its folder must be writable (npusim writes a new "
                                           "file beside it and renames it into place)", reason(err)));
    throw output_error(out_, "cannot be written: " + reason(err));
  }
  slot_ = claim_slot(writing_);
  // The permissions (and, as root, the owner) of the file it replaces, or those of a new file.
  if (d.kind == PathKind::kRegular) {
    (void)::fchmod(fd, d.st.st_mode & 07777);
    if (::geteuid() == 0) (void)::fchown(fd, d.st.st_uid, d.st.st_gid);
  } else {
    (void)::fchmod(fd, static_cast<mode_t>(mode) & ~process_umask() & 07777);
  }
  file_ = ::fdopen(fd, "wb");
  if (file_ == nullptr) {
    const int err = errno;
    ::close(fd);
    ::unlink(writing_.c_str());
    release_slot(slot_);
    throw output_error(out_, "cannot be written: " + reason(err));
  }
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : out_(std::move(other.out_)),
      target_(std::move(other.target_)),
      writing_(std::move(other.writing_)),
      file_(other.file_),
      direct_(other.direct_),
      done_(other.done_),
      slot_(other.slot_),
      error_(std::move(other.error_)) {
  other.file_ = nullptr;
  other.done_ = true;
  other.slot_ = -1;
}

OutputFile::~OutputFile() { discard(); }

void OutputFile::fail(int err) {
  if (error_.empty()) error_ = "cannot be written: " + reason(err);
}

void OutputFile::write(std::string_view bytes) {
  if (file_ == nullptr || !error_.empty() || bytes.empty()) {
    if (!error_.empty()) throw output_error(out_, error_);
    return;
  }
  errno = 0;
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    fail(errno);
    throw output_error(out_, error_);
  }
}

void OutputFile::flush() {
  if (file_ != nullptr && error_.empty()) {
    errno = 0;
    if (std::fflush(file_) != 0) fail(errno);
  }
  if (!error_.empty()) throw output_error(out_, error_);
}

void OutputFile::close_stream() {
  if (file_ == nullptr) return;
  std::FILE* f = file_;
  file_ = nullptr;
  errno = 0;
  if (std::fflush(f) != 0) fail(errno);
  errno = 0;
  if (std::fclose(f) != 0) fail(errno);
}

void OutputFile::release_stream() {
  close_stream();
  if (!error_.empty()) throw output_error(out_, error_);
}

void OutputFile::commit() {
  if (done_) {
    if (!error_.empty()) throw output_error(out_, error_);
    return;
  }
  close_stream();
  done_ = true;
  if (!direct_) {
    if (error_.empty() && ::rename(writing_.c_str(), target_.c_str()) != 0) fail(errno);
    if (!error_.empty()) ::unlink(writing_.c_str());  // ours; the destination is untouched
    release_slot(slot_);
    slot_ = -1;
  }
  if (!error_.empty()) throw output_error(out_, error_);
}

void OutputFile::discard() noexcept {
  if (done_) return;
  done_ = true;
  if (file_ != nullptr) std::fclose(file_);
  file_ = nullptr;
  if (!direct_) {
    ::unlink(writing_.c_str());
    release_slot(slot_);
    slot_ = -1;
  }
}

void OutputFile::park() noexcept {
  if (done_) return;
  close_stream();
  if (direct_ || !error_.empty()) {
    discard();
    return;
  }
  done_ = true;
  try {
    std::lock_guard<std::mutex> lock(g_parked_mu);
    g_parked.push_back(Parked{writing_, target_, out_, slot_});
  } catch (...) {
    ::unlink(writing_.c_str());
    release_slot(slot_);
  }
  slot_ = -1;
}

std::vector<std::string> publish_parked_outputs() {
  std::vector<Parked> parked;
  {
    std::lock_guard<std::mutex> lock(g_parked_mu);
    parked.swap(g_parked);
  }
  std::vector<std::string> errors;
  for (const auto& p : parked) {
    if (::rename(p.tmp.c_str(), p.target.c_str()) != 0) {
      errors.push_back(output_error(p.out, "cannot be written: " + reason(errno)).what());
      ::unlink(p.tmp.c_str());
    }
    release_slot(p.slot);
  }
  return errors;
}

void discard_parked_outputs() noexcept {
  std::lock_guard<std::mutex> lock(g_parked_mu);
  for (const auto& p : g_parked) {
    ::unlink(p.tmp.c_str());
    release_slot(p.slot);
  }
  g_parked.clear();
}

void remove_temporary_outputs_now() noexcept {
  for (auto& s : g_slots)
    if (s.used.load()) ::unlink(s.path);
}

void write_output(const OutputPath& o, std::string_view bytes, unsigned mode) {
  OutputFile f(o, mode);
  f.write(bytes);
  f.commit();
}

ScratchDir::ScratchDir(const OutputPath& for_output) {
  std::error_code ec;
  std::string base = fs::temp_directory_path(ec).string();
  if (ec || base.empty()) base = "/tmp";
  std::string tmpl = (fs::path(base) / "npusim-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) {
    OutputPath o = for_output;
    o.what += ": its temporary folder";
    o.shown = base;
    throw output_error(o, "cannot be written: " + reason(errno));
  }
  dir_ = tmpl;
}

ScratchDir::~ScratchDir() {
  for (const auto& f : files_) ::unlink(f.c_str());
  ::rmdir(dir_.c_str());  // only if empty: nothing but ours is ever removed
}

std::string ScratchDir::file(const std::string& name) {
  files_.push_back((fs::path(dir_) / name).string());
  return files_.back();
}

bool standard_output_ok() {
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) return false;
  return true;
}

}  // namespace npusim::sim
