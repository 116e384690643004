#!/bin/sh
# Engine to engine, side by side: npusim's HBM controller (bench_hbm_engine, no TLM) and a
# DRAMsim3 build, on the same request streams (docs/timing-model.md, "Against DRAMsim3";
# numbers in docs/performance.md).
#
#   bench/compare_dramsim3.sh DRAMSIM3_DIR DRIVER [BUILD_DIR [ROUNDS]]
#
# DRAMSIM3_DIR  a DRAMsim3 checkout built per its README (configs/HBM2_8Gb_x128.ini is read there)
# DRIVER        npusim's driver on DRAMsim3's MemorySystem API, BUILD_DIR/bench/dramsim3/
#               dramsim3_driver when npusim is configured with -DNPUSIM_DRAMSIM3_DIR=DRAMSIM3_DIR
#               (bench/dramsim3/driver.cpp), called as `DRIVER CONFIG PATTERN N ISSUE_WIDTH
#               OUTSTANDING READ_RATIO SEED SPAN` and printing a JSON object with
#               "bandwidth_gbps"; it replays the streams of bench/hbm_streams.h
# BUILD_DIR     npusim's build (default: build), with bench/bench_hbm_engine built
# ROUNDS        how many times to run both sides (default 1). Each round runs every npusim
#               workload once and then DRAMsim3 on each, so the two sides of a ratio are taken
#               minutes apart at most; with several rounds the table gives the median ratio
#               and its range over the rounds (the machine is shared: read the median).
#
# Both rates are CPU time: npusim's is Google Benchmark's items_per_second; DRAMsim3's is the
# request count over the driver process's user + system seconds (its own "req_per_s" is wall
# time, which on a loaded machine makes DRAMsim3 look several times slower than it is). The
# driver's process time includes building the stream and the MemorySystem and writing
# DRAMsim3's statistics (a few ms, about 1-3 % of a saturated workload's time).
set -eu
ds3=${1:?DRAMSIM3_DIR}; driver=${2:?DRIVER}; build=${3:-build}; rounds=${4:-1}
engine="$build/bench/bench_hbm_engine"
[ -x "$engine" ] || { echo "compare_dramsim3: $engine not built" >&2; exit 2; }
[ -x "$driver" ] || { echo "compare_dramsim3: driver '$driver' is not executable" >&2; exit 2; }
case $rounds in ''|*[!0-9]*|0) echo "compare_dramsim3: ROUNDS '$rounds' must be a positive integer" >&2; exit 2;; esac
ini=$(mktemp /tmp/hbm2_ini.XXXXXX)
trap 'rm -f "$ini"' EXIT
sed 's/^output_level *=.*/output_level = 0/' "$ds3/configs/HBM2_8Gb_x128.ini" > "$ini"
python3 - "$engine" "$driver" "$ini" "$rounds" <<'PY'
import json, resource, statistics, subprocess, sys
engine, driver, ini, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
gib8, gib1 = 8589934592, 1073741824
work = [  # benchmark name, then the driver's arguments
    ("BM_seq_saturated", "seq", 100000, 8, 0, 1, gib8),
    ("BM_random_saturated", "random", 100000, 8, 0, 1, gib8),
    ("BM_stride256_saturated", "stride:256", 100000, 8, 0, 1, gib8),
    ("BM_stride4k_saturated", "stride:4096", 100000, 8, 0, 1, gib8),
    ("BM_stride16k_saturated", "stride:16384", 100000, 8, 0, 1, gib8),
    ("BM_seq_o1", "seq", 20000, 1, 1, 1, gib8),
    ("BM_random_o1", "random", 20000, 1, 1, 1, gib8),
    ("BM_stride256_o1", "stride:256", 20000, 1, 1, 1, gib8),
    ("BM_stride4k_o1", "stride:4096", 20000, 1, 1, 1, gib8),
    ("BM_stride16k_o1", "stride:16384", 20000, 1, 1, 1, gib8),
    ("BM_random_mix_saturated", "random", 100000, 8, 0, 0.6666667, gib1),
    ("BM_seq_mix_saturated", "seq", 100000, 8, 0, 0.6666667, gib1),
]
def driver_run(args):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    pattern, n, width, outstanding, ratio, span = args
    out = subprocess.run([driver, ini, pattern, str(n), str(width), str(outstanding), str(ratio),
                          "1", str(span)],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return n / cpu, json.loads(out.decode())["bandwidth_gbps"]
ratios = {w[0]: [] for w in work}
last = {}
for r in range(rounds):
    out = subprocess.run([engine, "--benchmark_format=json", "--benchmark_repetitions=1"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
    np = {b["name"]: b for b in json.loads(out)["benchmarks"]}
    for name, *args in work:
        ds_rate, ds_gbps = driver_run(args)
        b = np[name]
        ratios[name].append(b["items_per_second"] / ds_rate)
        last[name] = (b["items_per_second"], ds_rate, b["GBps"], ds_gbps)
if rounds == 1:
    print("%-26s %14s %14s %8s %10s %10s" % ("workload", "npusim req/s", "DRAMsim3 req/s", "ratio", "np GB/s", "ds3 GB/s"))
    for name, *_ in work:
        a, c, b, d = last[name]
        print("%-26s %14.0f %14.0f %7.0fx %10.2f %10.2f" % (name, a, c, a / c, b, d))
else:
    print("%-26s %8s %16s %10s %10s   (%d rounds)" % ("workload", "median", "range", "np GB/s", "ds3 GB/s", rounds))
    for name, *_ in work:
        rs = ratios[name]
        a, c, b, d = last[name]
        print("%-26s %7.0fx %7.0fx-%6.0fx %10.2f %10.2f" % (name, statistics.median(rs), min(rs), max(rs), b, d))
PY
