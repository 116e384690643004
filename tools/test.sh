#!/usr/bin/env bash
# The whole test suite, as CI runs it: a -Werror build and an ASan+UBSan build, each with
# every test. Run as root on Debian 12 (installs missing packages first).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/deps.sh
jobs=${JOBS:-2}

echo "== release build (-Wall -Wextra -Werror) =="
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNPUSIM_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build -j"$jobs" --output-on-failure

echo "== sanitizer build (-fsanitize=address,undefined) =="
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DNPUSIM_WERROR=ON -DNPUSIM_SANITIZE=ON \
      -DNPUSIM_BENCH=OFF -DNPUSIM_PROTOCOL_CHECKS=ON >/dev/null
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan -j"$jobs" --output-on-failure

echo "== fuzzing the scenario parser (libFuzzer, 60 s) =="
cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DNPUSIM_FUZZ=ON -DNPUSIM_TESTS=OFF \
      -DNPUSIM_BENCH=OFF -DNPUSIM_WERROR=ON >/dev/null
cmake --build build-fuzz --target fuzz_scenario -j"$jobs"
mkdir -p build-fuzz/corpus
cp scenarios/*.yaml build-fuzz/corpus/
cp scenarios/snitch/*.yaml build-fuzz/corpus/
./build-fuzz/tests/fuzz/fuzz_scenario -max_total_time="${FUZZ_SECONDS:-60}" -max_len=4096 \
  -print_final_stats=1 build-fuzz/corpus 2>&1 | tail -n 5
echo "fuzz: no crash in ${FUZZ_SECONDS:-60} s"
