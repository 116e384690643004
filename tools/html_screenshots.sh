#!/usr/bin/env bash
# Refreshes the screenshots of the HTML report in docs/img/ (docs/report.md), one per report
# kind: a Neuron run, a snitch-cluster run, a torch_op run, two runs compared, a sweep's plots.
# Needs a built npusim (BUILD, default build/) and chromium. Arguments name the kinds to refresh
# (neuron snitch torch compare sweep; default: all).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
npusim=$build/npusim
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() {  # run NAME SCENARIO [npusim run options]
  local name=$1 sc=$2; shift 2
  SC_COPYRIGHT_MESSAGE=DISABLE "$npusim" run "$sc" --report "$out/$name.report.json" \
    --trace "$out/$name.trace.json" "$@" >/dev/null || true  # a failing scenario still reports
}
shot() {  # shot NAME HEIGHT: docs/img/html-report-NAME.png from $out/NAME.html
  local profile
  profile=$(mktemp -d)
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --hide-scrollbars --window-size="1100,$2" \
    --virtual-time-budget=5000 --screenshot="$PWD/docs/img/html-report-$1.png" \
    "file://$out/$1.html" 2>/dev/null
  rm -rf "$profile"
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
SC_COPYRIGHT_MESSAGE=DISABLE "$npusim" sweep tests/data/sweep_plot.yaml -o "$out/sweep" -j 2 -q >/dev/null || true
"$npusim" report --sweep "$out/sweep" --html "$out/sweep.html" >/dev/null
shot sweep 1700
fi
