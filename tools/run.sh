#!/usr/bin/env bash
# Installs what is missing, builds npusim and runs its embedded default scenario, writing a
# timing trace (open it at https://ui.perfetto.dev) and the JSON report next to the build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"${JOBS:-2}" --target npusim
./build/npusim run --trace build/default-trace.json --vcd build/default.vcd \
  --report build/default-report.json
