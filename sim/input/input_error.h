// The error every parser throws for bad input, and the number syntax the offline tools share.
// An InputError names the file, the line (and column) and the offending token; the CLI turns
// it into exit code 2 (sim/cli/cli_errors.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace npusim::sim {

// Bad input: names the file, the line and the offending token. Exit code 2.
class InputError : public std::runtime_error {
 public:
  InputError(const std::string& file, int line, const std::string& token, const std::string& why,
             int column = 0);
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& token() const { return token_; }

 private:
  std::string file_;
  int line_;
  int column_;
  std::string token_;
};

// Parses a number as the trace and the command line accept it: decimal or 0x-hex.
std::optional<uint64_t> parse_number(const std::string& token);

}  // namespace npusim::sim
