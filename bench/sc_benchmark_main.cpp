// The sc_main shared by the Google Benchmark binaries that link SystemC (SystemC owns main()
// and calls sc_main): run the benchmarks that the command line selects.
#include <benchmark/benchmark.h>

#include <systemc>

int sc_main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
