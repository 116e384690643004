// The files a command will write, checked before it runs (issue 13): each must be writable
// (not a directory, its folder exists, permission) and no two may be the same file, so a
// long run never ends with "cannot write" or with one output silently overwriting another.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace npusim::sim {

struct OutputPath {
  std::string what;  // how the user named it: "--trace", "tensors.yaml:7:3: output"
  std::string path;  // empty: not requested
};

// Throws InputError naming the option (or place) and the path, with the reason.
// A file that does not exist yet is created to prove it can be, then removed.
void check_output_paths(const std::vector<OutputPath>& outputs);

}  // namespace npusim::sim
