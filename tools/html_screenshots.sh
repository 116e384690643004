#!/usr/bin/env bash
# Regenerates the screenshots of the HTML report in docs/img/ (shown in docs/report.md and
# docs/sweep.md), one per report kind: a Neuron run, a snitch-cluster run, a torch_op run, two
# runs compared, a sweep's plots.
#
#   tools/html_screenshots.sh [KIND...]      KIND: neuron snitch torch compare sweep (default: all)
#
# The pictures must show the committed program: the script refuses a checkout with changes
# (commit or stash them first), then builds `npusim` in BUILD (default build/; configured
# first if it is not) from that checkout, and checks that the program it runs says so
# (`npusim --version` without "-dirty"). Needs chromium (tools/deps.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
if [[ -n $(git status --porcelain) ]]; then
  echo "html_screenshots: the checkout has changes; commit or stash them first:" >&2
  git status --short >&2
  exit 2
fi
command -v chromium >/dev/null || { echo "html_screenshots: chromium is not installed (tools/deps.sh)" >&2; exit 2; }
[[ -f $build/CMakeCache.txt ]] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 --target npusim >/dev/null
npusim=$build/npusim
version=$("$npusim" --version)
if [[ $version == *-dirty* || $version != *"$(git rev-parse --short HEAD)"* ]]; then
  echo "html_screenshots: $npusim says '$version', not the checkout's $(git rev-parse --short HEAD)" >&2
  exit 2
fi
export SC_COPYRIGHT_MESSAGE=DISABLE
out=$build/html_screenshots  # in the build tree: the pages show these paths
rm -rf "$out"
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT
run() {  # run NAME SCENARIO [npusim run options]: exit 0, or 1 for a scenario that fails on purpose
  local name=$1 sc=$2 rc=0; shift 2
  "$npusim" run "$sc" --report "$out/$name.report.json" --trace "$out/$name.trace.json" "$@" >/dev/null || rc=$?
  (( rc <= 1 )) || { echo "html_screenshots: npusim run $sc exits $rc" >&2; exit 1; }
}
shot() {  # shot NAME HEIGHT: docs/img/html-report-NAME.png from $out/NAME.html
  local profile
  profile=$(mktemp -d)
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --hide-scrollbars --window-size="1100,$2" \
    --virtual-time-budget=5000 --screenshot="$PWD/docs/img/html-report-$1.png" \
    "file://$(realpath "$out")/$1.html" 2>/dev/null
  rm -rf "$profile"
  [[ -s docs/img/html-report-$1.png ]] || { echo "html_screenshots: chromium wrote no docs/img/html-report-$1.png" >&2; exit 1; }
  echo "docs/img/html-report-$1.png"
}
KINDS="$*"
want() { [[ -z $KINDS || " $KINDS " == *" $1 "* ]]; }  # want KIND: asked for, or all
if want neuron; then
  run neuron scenarios/dataram_fragmentation.yaml
  "$npusim" report "$out/neuron.report.json" --trace "$out/neuron.trace.json" --html "$out/neuron.html" >/dev/null
  shot neuron 2200
fi
if want snitch; then
  run snitch scenarios/snitch/dma_tiling.yaml
  "$npusim" report "$out/snitch.report.json" --trace "$out/snitch.trace.json" --html "$out/snitch.html" >/dev/null
  shot snitch 2400
fi
if want torch; then
  run torch scenarios/torch_relu_multicore.yaml
  "$npusim" report "$out/torch.report.json" --trace "$out/torch.trace.json" --html "$out/torch.html" >/dev/null
  shot torch 1500
fi
if want compare; then
  run a scenarios/default.yaml
  run b scenarios/default.yaml --set dma.burst_bytes=128
  "$npusim" report "$out/a.report.json" "$out/b.report.json" --trace "$out/a.trace.json" \
    --trace "$out/b.trace.json" --html "$out/compare.html" >/dev/null
  shot compare 4400
fi
if want sweep; then
  rc=0
  "$npusim" sweep scenarios/sweeps/dma_vs_hbm_clock.yaml -o "$out/sweep" -j 2 -q >/dev/null || rc=$?
  (( rc <= 1 )) || { echo "html_screenshots: npusim sweep exits $rc" >&2; exit 1; }
  "$npusim" report --sweep "$out/sweep" --html "$out/sweep.html" >/dev/null
  shot sweep 1700
fi
echo "commit docs/img/ with the change it shows"
