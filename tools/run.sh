#!/usr/bin/env bash
# Installs what is missing, builds npusim and runs its embedded default scenario, writing a
# timing trace (open it at https://ui.perfetto.dev) and the JSON report next to the build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
# The plugin example too: scenarios/torch_plugin_clamp.yaml runs its op from that library.
cmake --build build -j"${JOBS:-2}" --target npusim npusim_plugin_example
./build/npusim run --trace build/default-trace.json --vcd build/default.vcd \
  --report build/default-report.json
echo "A torch op from a plugin: ./build/npusim run --plugin build/firmware/torch/libnpusim_plugin_example.so scenarios/torch_plugin_clamp.yaml"
