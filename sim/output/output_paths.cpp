#include "sim/output/output_paths.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "sim/input/input_error.h"

namespace npusim::sim {

namespace fs = std::filesystem;

namespace {

// The file a path names, for comparing two paths: absolute, `.` and `..` and symlinks of the
// existing part resolved.
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
        throw InputError(o.what, 0, o.path,
                         fmt::format("the same file as {}: one output would overwrite the other",
                                     outputs[j].what));
    std::error_code ec;
    if (fs::is_directory(o.path, ec))
      throw InputError(o.what, 0, o.path, "is a directory, not a file");
    const bool existed = fs::exists(o.path, ec);
    errno = 0;
    std::FILE* f = std::fopen(o.path.c_str(), "ab");  // never truncates what is there
    if (f == nullptr) {
      const int err = errno;
      throw InputError(o.what, 0, o.path,
                       fmt::format("cannot be written: {}", err ? std::strerror(err) : "unknown reason"));
    }
    std::fclose(f);
    if (!existed) std::remove(o.path.c_str());
  }
}

}  // namespace npusim::sim
