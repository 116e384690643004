#!/usr/bin/env bash
# End-to-end checks of `npusim sweep` that run points as processes (no Slurm needed).
#   sweep_cli.sh NPUSIM CASE [PLUGIN]   CASE: local | resume | reject | point_collect | interrupt
#                                             | collect_agrees | plugin (PLUGIN: the example plugin)
set -euo pipefail
npusim=$1
case_=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/npusim-sweep-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
rows() { echo $(($(wc -l < "$1") - 1)); }
col() {  # value of column $2 in row $3 (1-based data row) of CSV $1 (no quoted commas before it)
  local n
  n=$(head -n 1 "$1" | tr ',' '\n' | grep -n -x "$2" | cut -d: -f1)
  [ -n "$n" ] || fail "no column $2 in $1"
  sed -n "$(($3 + 1))p" "$1" | cut -d, -f"$n"
}

case "$case_" in
collect_agrees)
  # The summary line, the exit code and results.csv agree on which points passed.
  printf 'name: agree\ngrid: {dma.channels: [1, 2, 4]}\n' > "$work/a.yaml"
  "$npusim" sweep "$work/a.yaml" -j 2 -q -o "$work/out" > /dev/null || fail "the sweep itself failed"
  # Point 0 exited 0 but left no report; point 1's report says ok but its run exited 2.
  rm "$work/out/points/00000/report.json"
  sed -i 's/"exit_code": 0/"exit_code": 2/' "$work/out/points/00001/status.json"
  set +e; "$npusim" sweep --collect "$work/out" > "$work/stdout" 2>&1; rc=$?; set -e
  [ "$rc" = 1 ] || fail "collect exit $rc, expected 1: $(cat "$work/stdout")"
  grep -q "sweep: 3 points: 1 ok, 2 failed, 0 not run" "$work/stdout" || fail "summary: $(cat "$work/stdout")"
  r="$work/out/results.csv"
  [ "$(col "$r" status 1)" = failed ] || fail "point 0's status: $(col "$r" status 1)"
  grep -q '^0,.*the run exited 0 but left no readable report' "$r" || fail "point 0's message"
  [ "$(col "$r" status 2)" = failed ] && [ "$(col "$r" exit_code 2)" = 2 ] || fail "point 1: $(sed -n 3p "$r")"
  [ "$(col "$r" status 3)" = ok ] || fail "point 2 should pass"
  # Nothing else: the collect of an untouched sweep says all passed, and exits 0.
  "$npusim" sweep "$work/a.yaml" -j 2 -q -o "$work/fresh" > "$work/stdout" || fail "a fresh sweep fails"
  "$npusim" sweep --collect "$work/fresh" > "$work/stdout" || fail "collect of a fresh sweep fails"
  grep -q "sweep: 3 points: 3 ok, 0 failed, 0 not run" "$work/stdout" || fail "fresh summary: $(cat "$work/stdout")"
  ;;
local)
  set +e; "$npusim" sweep "$here/small.yaml" -j 2 -o "$work/out" > "$work/stdout" 2> "$work/stderr"; rc=$?; set -e
  [ "$rc" = 1 ] || fail "exit $rc, expected 1 (two points fail)"
  grep -q "sweep: 5 points: 3 ok, 2 failed, 0 not run" "$work/stdout" || fail "summary: $(cat "$work/stdout")"
  grep -q "sweep: 5/5 points (5 ran, 0 skipped, 2 failed)" "$work/stderr" || fail "progress: $(cat "$work/stderr")"
  r="$work/out/results.csv"
  [ "$(rows "$r")" = 5 ] || fail "$(rows "$r") rows"
  [ "$(wc -l < "$work/out/results.jsonl")" = 5 ] || fail "results.jsonl rows"
  head -n 1 "$r" | grep -q '^point,scenario,rep,dma.channels,heaps.dataram_pool_size,hbm.tck_ns,status,exit_code,host_time_s,message,alloc_failures,' ||
    fail "header: $(head -n 1 "$r")"
  [ "$(col "$r" dma.channels 3)" = 2 ] && [ "$(col "$r" heaps.dataram_pool_size 3)" = 0x2000 ] || fail "row 3 overrides"
  [ "$(col "$r" status 1)" = fault ] && [ "$(col "$r" exit_code 1)" = 1 ] || fail "point 0 should fail with a fault"
  grep -q '^0,.*allocation failure: .*dataram heap failed' "$r" || fail "point 0's message"
  [ "$(col "$r" status 2)" = ok ] && [ "$(col "$r" exit_code 2)" = 0 ] || fail "point 1 should pass"
  [ "$(col "$r" hbm.tck_ns 5)" = 1.0 ] || fail "point 4 override"
  # A slower HBM clock makes the run longer: the metrics are each point's own.
  d1=$(col "$r" duration 2); d5=$(col "$r" duration 5)
  awk -v a="$d1" -v b="$d5" 'BEGIN { exit !(b > a) }' || fail "duration at tCK 1.0 ($d5) not above the default's ($d1)"
  awk -v t="$(col "$r" host_time_s 2)" 'BEGIN { exit !(t > 0 && t < 60) }' || fail "host time"
  cmp -s "$work/out/points/00001/report.json" <("$npusim" run --set dma.channels=1 --set heaps.dataram_pool_size=0x4000 \
    --report /dev/stdout | sed -n '/^{/,/^}/p') || fail "point 1's report differs from the same npusim run"
  ;;
resume)
  "$npusim" sweep "$here/small.yaml" -j 2 -q -o "$work/out" > /dev/null || true
  m1=$(stat -c %Y%N "$work/out/points/00002/report.json")
  rm "$work/out/points/00003/report.json"
  printf '{"npusim_report_version": 1, "outc' > "$work/out/points/00004/report.json"  # a run cut short
  set +e; "$npusim" sweep "$here/small.yaml" -j 2 -o "$work/out" > "$work/stdout" 2> "$work/stderr"; set -e
  grep -q "5/5 points (2 ran, 3 skipped, 0 failed)" "$work/stderr" || fail "resume: $(cat "$work/stderr")"
  [ "$(stat -c %Y%N "$work/out/points/00002/report.json")" = "$m1" ] || fail "a complete point was rerun"
  [ "$(col "$work/out/results.csv" status 4)" = ok ] && [ "$(col "$work/out/results.csv" status 5)" = ok ] ||
    fail "rerun points are not ok"
  [ "$(col "$work/out/results.csv" status 1)" = fault ] || fail "a skipped failed point lost its row"
  # A changed sweep: points whose definition changed run again.
  sed 's/\[1, 2\]/[1, 3]/' "$here/small.yaml" > "$work/changed.yaml"
  "$npusim" sweep "$work/changed.yaml" -j 2 -o "$work/out" > /dev/null 2> "$work/stderr" || true
  grep -q "5/5 points (2 ran, 3 skipped" "$work/stderr" || fail "changed sweep: $(cat "$work/stderr")"
  # A changed scenario file: all its points run again.
  cp "$here/../../scenarios/default.yaml" "$work/sc.yaml"
  printf 'scenario: sc.yaml\ngrid: {dma.channels: [1, 2]}\n' > "$work/f.yaml"
  "$npusim" sweep "$work/f.yaml" -j 2 -o "$work/f" > /dev/null 2>&1 || fail "sweep of a scenario file"
  echo "# changed" >> "$work/sc.yaml"
  "$npusim" sweep "$work/f.yaml" -j 2 -o "$work/f" > /dev/null 2> "$work/stderr" || true
  grep -q "2/2 points (2 ran, 0 skipped" "$work/stderr" || fail "changed scenario: $(cat "$work/stderr")"
  ;;
reject)
  set +e; "$npusim" sweep "$here/bad_point.yaml" -o "$work/out" > "$work/stdout" 2> "$work/stderr"; rc=$?; set -e
  [ "$rc" = 2 ] || fail "exit $rc, expected 2"
  grep -q "bad_point.yaml:4:24: point 2 (default, heaps.dataram_pool_size=0x4000 dma.channels=0) is rejected: must be at least 1" \
    "$work/stderr" || fail "message: $(cat "$work/stderr")"
  [ ! -e "$work/out" ] || fail "a rejected sweep created its output directory"
  set +e; "$npusim" sweep "$here/bad_point.yaml" --emit slurm "$work/slurm" 2> /dev/null; rc=$?; set -e
  [ "$rc" = 2 ] && [ ! -e "$work/slurm" ] || fail "--emit slurm of a rejected sweep: exit $rc"
  set +e; "$npusim" sweep "$work/nope.yaml" 2> "$work/stderr"; rc=$?; set -e
  [ "$rc" = 2 ] && grep -q "nope.yaml: the sweep file does not exist" "$work/stderr" || fail "missing file: $(cat "$work/stderr")"
  printf 'grid: {\n' > "$work/broken.yaml"
  set +e; "$npusim" sweep "$work/broken.yaml" 2> "$work/stderr"; rc=$?; set -e
  [ "$rc" = 2 ] && grep -q "broken.yaml:2:1: YAML syntax" "$work/stderr" || fail "broken YAML: $(cat "$work/stderr")"
  set +e; "$npusim" sweep --point 9 -o "$work/none" 2> "$work/stderr"; rc=$?; set -e
  [ "$rc" = 2 ] && grep -q "plan.json: no sweep plan here" "$work/stderr" || fail "--point without a plan: $(cat "$work/stderr")"
  ;;
point_collect)
  # What a Slurm array does, by hand: --emit, every --point, --collect; equal to a local sweep.
  "$npusim" sweep "$here/small.yaml" --emit slurm "$work/s" --chunk 2 > /dev/null
  grep -q -- '--array=0-2$' "$work/s/sweep.sbatch" || fail "5 points in chunks of 2 are 3 tasks"
  for i in 0 1 2 3 4; do "$npusim" sweep --point "$i" -o "$work/s" || true; done
  set +e; "$npusim" sweep --point 5 -o "$work/s" 2> "$work/stderr"; rc=$?; set -e
  [ "$rc" = 2 ] && grep -q "no such point: the sweep has points 0 to 4" "$work/stderr" || fail "--point 5"
  set +e; "$npusim" sweep --collect "$work/s" > /dev/null; crc=$?; set -e
  [ "$crc" = 1 ] || fail "collect exit $crc, expected 1"
  "$npusim" sweep "$here/small.yaml" -j 2 -q -o "$work/l" > /dev/null || true
  n=$(head -n 1 "$work/l/results.csv" | tr ',' '\n' | grep -n -x host_time_s | cut -d: -f1)
  diff <(cut -d, -f"1-$((n - 1)),$((n + 1))-" "$work/l/results.csv") <(cut -d, -f"1-$((n - 1)),$((n + 1))-" "$work/s/results.csv") ||
    fail "--point/--collect results differ from the local sweep"
  # The array script itself, run as Slurm would run task 2 (the last, one point).
  rm -rf "$work/s/points/00004"
  SLURM_ARRAY_TASK_ID=2 bash "$work/s/sweep.sbatch" || true
  [ -s "$work/s/points/00004/report.json" ] || fail "task 2 did not run point 4"
  ;;
interrupt)
  # SIGTERM stops the sweep: running points end, finished ones are kept, a rerun resumes.
  printf 'name: long\nrepeat: 60\n' > "$work/long.yaml"
  "$npusim" sweep "$work/long.yaml" -j 2 -q -o "$work/out" > "$work/stdout" 2> "$work/stderr" &
  pid=$!
  # Up to two minutes: on a loaded machine the first ten points take longer than usual.
  for _ in $(seq 1200); do [ -e "$work/out/points/00010/status.json" ] && break; sleep 0.1; done
  kill -TERM "$pid"
  set +e; wait "$pid"; rc=$?; set -e
  [ "$rc" = 143 ] || fail "exit $rc after SIGTERM, expected 143"
  grep -q "stopped by signal 15" "$work/stderr" || fail "no stop message: $(cat "$work/stderr")"
  done_=$(grep -c ',ok,0,' "$work/out/results.csv" || true)
  [ "$done_" -ge 10 ] && [ "$done_" -lt 60 ] || fail "$done_ points ok after the stop"
  grep -q ',not_run,' "$work/out/results.csv" || fail "the unrun points are not recorded as not_run"
  ! grep -q ',crashed,' "$work/out/results.csv" || fail "points ended by the stop are recorded as crashed"
  "$npusim" sweep "$work/long.yaml" -j 2 -o "$work/out" > /dev/null 2> "$work/stderr" || fail "resume after the stop"
  grep -q "60/60 points (.* ran, $done_ skipped, 0 failed)" "$work/stderr" || fail "resume: $(tail -n 1 "$work/stderr")"
  ;;
plugin)
  # A plugin op swept: the sweep file's plugins (or --plugin) reach validation, every point's
  # run and the Slurm array's tasks; without them the op is named missing before anything runs.
  plugin=$3
  scen=$(cd "$here/../../scenarios" && pwd)/torch_plugin_clamp.yaml
  printf 'name: clamp\nscenario: %s\ngrid: {hbm.tck_ns: [0.5, 1.0]}\n' "$scen" > "$work/bare.yaml"
  set +e; "$npusim" sweep "$work/bare.yaml" --dry-run > "$work/stdout" 2> "$work/stderr"; rc=$?; set -e
  [ "$rc" = 2 ] || fail "a plugin op without its plugin: exit $rc, expected 2: $(cat "$work/stdout")"
  grep -q "torch_plugin_clamp.yaml:[0-9]*:[0-9]*: point 0 (torch_plugin_clamp.yaml) is rejected: no torch op 'clamp_unit_tcm'" "$work/stderr" &&
    grep -q -- "--plugin" "$work/stderr" || fail "message: $(cat "$work/stderr")"
  "$npusim" sweep "$work/bare.yaml" --plugin "$plugin" --dry-run > "$work/stdout" || fail "--plugin: the dry run fails"
  grep -q "sweep clamp: 2 points, all valid" "$work/stdout" || fail "dry run: $(cat "$work/stdout")"
  cp "$plugin" "$work/libclamp.so"
  { cat "$work/bare.yaml"; printf 'plugins: [libclamp.so]\n'; } > "$work/with.yaml"
  "$npusim" sweep "$work/with.yaml" -j 2 -q -o "$work/out" > "$work/stdout" || fail "local sweep: $(cat "$work/stdout")"
  grep -q "sweep: 2 points: 2 ok, 0 failed" "$work/stdout" || fail "summary: $(cat "$work/stdout")"
  grep -q -- "--plugin $work/libclamp.so" "$work/out/points/00001/log.txt" 2>/dev/null ||
    grep -q "libclamp.so" "$work/out/plan.json" || fail "the plan does not name the plugin"
  # A slower HBM clock: a longer run (the points ran the op, each with its own profile).
  d1=$(col "$work/out/results.csv" duration 1); d2=$(col "$work/out/results.csv" duration 2)
  awk -v a="$d1" -v b="$d2" 'BEGIN { exit !(b > a) }' || fail "duration at tCK 1.0 ($d2) not above 0.5's ($d1)"
  # The Slurm array: its plan carries the plugin; a task runs its point with it.
  "$npusim" sweep "$work/with.yaml" --emit slurm "$work/s" > /dev/null || fail "--emit slurm"
  grep -q "libclamp.so" "$work/s/plan.json" || fail "the array's plan has no plugin"
  SLURM_ARRAY_TASK_ID=1 bash "$work/s/sweep.sbatch" || fail "task 1 failed: $(cat "$work/s/points/00001/log.txt")"
  grep -q '"status": *"ok"\|"status":"ok"' "$work/s/points/00001/report.json" || fail "task 1's report"
  # --plugin is for planning only.
  set +e; "$npusim" sweep --point 0 -o "$work/s" --plugin "$plugin" 2> "$work/stderr"; rc=$?; set -e
  [ "$rc" = 2 ] && grep -q -- "--plugin.*is only for planning" "$work/stderr" || fail "--point --plugin: $(cat "$work/stderr")"
  set +e; "$npusim" sweep "$work/bare.yaml" --plugin "$work/nope.so" --dry-run 2> "$work/stderr"; rc=$?; set -e
  [ "$rc" = 2 ] && grep -q "nope.so" "$work/stderr" || fail "a missing --plugin: $(cat "$work/stderr")"
  { cat "$work/bare.yaml"; printf 'plugins: [nope.so]\n'; } > "$work/nope.yaml"
  set +e; "$npusim" sweep "$work/nope.yaml" --dry-run 2> "$work/stderr"; rc=$?; set -e
  [ "$rc" = 2 ] && grep -q "nope.yaml:4:[0-9]*: plugin library '$work/nope.so' does not exist" "$work/stderr" ||
    fail "a missing plugins: entry: $(cat "$work/stderr")"
  ;;
*) fail "unknown case $case_" ;;
esac
echo "PASS: sweep $case_"
