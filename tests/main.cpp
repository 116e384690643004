// Catch2 runner for tests that simulate: SystemC wants sc_main.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <systemc>

int sc_main(int argc, char** argv) { return Catch::Session().run(argc, argv); }
