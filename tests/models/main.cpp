// Runner for the model tests. SystemC elaborates once per process, so every TEST_CASE that
// builds modules runs in its own process: ctest runs each TEST_CASE separately
// (catch_discover_tests). Running this binary with several such test cases at once fails.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <systemc>

#include "models/protocol_checker.h"

// A counted TLM protocol violation fails the run (docs/protocol-checks.md); the negative
// tests' checkers do not count.
int sc_main(int argc, char** argv) {
  return npusim::models::protocol_checked_exit(Catch::Session().run(argc, argv));
}
