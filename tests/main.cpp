// Catch2 runner for tests that simulate: SystemC wants sc_main.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <systemc>

#include "models/protocol_checker.h"

// A counted TLM protocol violation fails the run (docs/protocol-checks.md).
int sc_main(int argc, char** argv) {
  return npusim::models::protocol_checked_exit(Catch::Session().run(argc, argv));
}
