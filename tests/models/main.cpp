// Runner for the model tests. SystemC elaborates once per process, so every TEST_CASE that
// builds modules runs in its own process: ctest runs each TEST_CASE separately
// (catch_discover_tests). Running this binary with several such test cases at once fails.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <systemc>

int sc_main(int argc, char** argv) { return Catch::Session().run(argc, argv); }
