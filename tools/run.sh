#!/usr/bin/env bash
# Installs what is missing, builds npusim and runs it on its bundled default.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"${JOBS:-2}" --target npusim
./build/npusim heap replay --allocator neuron-dataram --summary scenarios/heap/dataram_mixed.ops
