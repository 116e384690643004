#!/usr/bin/env bash
# The whole test suite, as CI runs it: a -Werror build and an ASan+UBSan build, each with
# every test. Run as root on Debian 12 (installs missing packages first).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/deps.sh
jobs=${JOBS:-2}

echo "== release build (-Wall -Wextra -Werror) =="
# -O2 as RelWithDebInfo, without the debug information (a quarter less compile time), each
# library and the test program compiled as a few large translation units (NPUSIM_UNITY); Ninja
# keeps both cores busy across targets (docs/development.md).
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" \
      -DNPUSIM_WERROR=ON -DNPUSIM_UNITY=ON >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build -j"$jobs" --output-on-failure

echo "== sanitizer build (-fsanitize=address,undefined) =="
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DNPUSIM_WERROR=ON -DNPUSIM_SANITIZE=ON \
      -DNPUSIM_BENCH=OFF -DNPUSIM_PROTOCOL_CHECKS=ON -DNPUSIM_UNITY=ON >/dev/null
cmake --build build-asan -j"$jobs"
# LeakSanitizer on: cmake/asan_main_stack.cpp makes it scan the real main stack at exit.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan -j"$jobs" --output-on-failure

bash tools/fuzz.sh
