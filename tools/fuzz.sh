#!/usr/bin/env bash
# Fuzzes every parser with libFuzzer (clang): FUZZ_SECONDS in all (default 60), shared equally
# by the fuzzers and run JOBS (default 2) at a time, from a fixed seed FUZZ_SEED (default 1; 0
# draws a new one). tools/test.sh calls it; a longer campaign:
#   FUZZ_SECONDS=1200 FUZZ_SEED=0 bash tools/fuzz.sh
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${JOBS:-2}

echo "== fuzzing every parser (libFuzzer, ${FUZZ_SECONDS:-60} s in all, $jobs at a time) =="
cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DNPUSIM_FUZZ=ON -DNPUSIM_TESTS=OFF \
      -DNPUSIM_BENCH=OFF -DNPUSIM_WERROR=ON >/dev/null
fuzzers=(fuzz_scenario fuzz_neuron_scenario fuzz_snitch_scenario fuzz_torch_op fuzz_profile
         fuzz_heap_ops fuzz_check_windows_csv fuzz_check_windows_json fuzz_report fuzz_sweep
         fuzz_traffic_trace fuzz_elf)
cmake --build build-fuzz --target "${fuzzers[@]}" -j"$jobs"
# Seeds: the shipped files of each kind (a torch_op seed is the body of a scenario's torch_op).
seeds() {  # seeds TARGET FILE... (numbered: two seeds may share a file name)
  mkdir -p "build-fuzz/corpus/$1"
  local t=$1 i=0 f; shift
  for f in "$@"; do
    i=$((i + 1))
    cp "$f" "build-fuzz/corpus/$t/$i-$(basename "$f")"
  done
  return 0
}
rm -rf build-fuzz/corpus
seeds fuzz_scenario scenarios/*.yaml scenarios/snitch/*.yaml tests/data/*.yaml
seeds fuzz_neuron_scenario scenarios/*.yaml tests/bad_input/data/*.yaml
seeds fuzz_snitch_scenario scenarios/snitch/*.yaml tests/data/snitch_*.yaml
seeds fuzz_torch_op
for f in scenarios/torch_*.yaml; do
  sed -n '/^torch_op:/,/^[^ #]/{/^  /s/^  //p}' "$f" > "build-fuzz/corpus/fuzz_torch_op/$(basename "$f")"
done
seeds fuzz_profile models/hbm2.yaml sim/platforms/*.yaml tests/models/bad_platform.yaml tests/fuzz/seeds/profile_*.yaml
seeds fuzz_heap_ops scenarios/heap/*.ops tests/data/*.ops
seeds fuzz_check_windows_csv scenarios/descriptors/*.csv tests/data/*.csv tests/bad_input/data/*.csv
seeds fuzz_check_windows_json scenarios/descriptors/*.json tests/bad_input/data/*.json
seeds fuzz_report tests/golden/default.report.json tests/golden/custom_op_relu.report.json tests/data/bad_report.json \
      tests/data/bad_trace.json tests/bad_input/data/report_*.json tests/bad_input/data/trace_types.json
seeds fuzz_sweep tests/sweep/*.yaml tests/data/sweep_plot.yaml tests/bad_input/data/sweep_huge.yaml tests/bad_input/data/sweep_many_values.yaml \
      tests/data/bad_sweep/results.jsonl tests/bad_input/data/sweep_bad_results/results.jsonl
seeds fuzz_traffic_trace tests/fuzz/seeds/trace_*
seeds fuzz_elf tests/fuzz/seeds/program.elf
declare -A dict=([fuzz_scenario]=scenario [fuzz_neuron_scenario]=scenario [fuzz_snitch_scenario]=scenario
                 [fuzz_torch_op]=torch_op [fuzz_profile]=profile [fuzz_heap_ops]=heap_ops
                 [fuzz_check_windows_csv]=check_windows [fuzz_check_windows_json]=check_windows
                 [fuzz_report]=report [fuzz_sweep]=sweep [fuzz_traffic_trace]=traffic_trace [fuzz_elf]=elf)
per=$(( ${FUZZ_SECONDS:-60} / ${#fuzzers[@]} ))
[ "$per" -ge 1 ] || per=1
# JOBS fuzzers at a time, each for its share of FUZZ_SECONDS; the verdicts are printed in order.
fuzz_one() {  # fuzz_one TARGET: its log in build-fuzz/TARGET.log, build-fuzz/TARGET.failed on a find
  local f=$1
  rm -f "build-fuzz/$f.failed"
  # A crash, a sanitizer report, a leak or a timeout makes libFuzzer exit non-zero: CI fails.
  # A fixed seed (FUZZ_SEED, default 1) makes a run the same sequence of inputs on every machine:
  # a slower machine tries a prefix of what a faster one tried. FUZZ_SEED=0 draws a new one.
  build-fuzz/tests/fuzz/"$f" -seed="${FUZZ_SEED:-1}" -max_total_time="$per" -max_len=4096 -timeout=10 \
    -rss_limit_mb=2048 -artifact_prefix=build-fuzz/ -dict="tests/fuzz/${dict[$f]}.dict" -print_final_stats=1 \
    "build-fuzz/corpus/$f" >"build-fuzz/$f.log" 2>&1 || touch "build-fuzz/$f.failed"
}
running=()
for f in "${fuzzers[@]}"; do
  fuzz_one "$f" &
  running+=($!)
  if [ ${#running[@]} -ge "$jobs" ]; then
    wait "${running[0]}"
    running=("${running[@]:1}")
  fi
done
wait
for f in "${fuzzers[@]}"; do
  if [ -e "build-fuzz/$f.failed" ]; then
    tail -n 60 "build-fuzz/$f.log"
    echo "fuzz: $f found a crash (build-fuzz/$f.log; the input is in crash-*)"
    exit 1
  fi
  grep -E "^stat::number_of_executed_units" "build-fuzz/$f.log" || true
  echo "fuzz: $f: no crash in $per s"
done
