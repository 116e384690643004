#!/bin/sh
# Engine to engine, side by side: npusim's HBM controller (bench_hbm_engine, no TLM) and a
# DRAMsim3 build, on the same request streams (docs/timing-model.md, "Against DRAMsim3";
# numbers in docs/performance.md).
#
#   bench/compare_dramsim3.sh DRAMSIM3_DIR DRIVER [BUILD_DIR]
#
# DRAMSIM3_DIR  a DRAMsim3 checkout built with CMake (configs/HBM2_8Gb_x128.ini is read there)
# DRIVER        a program on DRAMsim3's MemorySystem API, kept outside this repository, called
#               as `DRIVER CONFIG PATTERN N ISSUE_WIDTH OUTSTANDING READ_RATIO SEED SPAN` and
#               printing one JSON line with "req_per_s" (requests per host second, the
#               MemorySystem's construction excluded) and "bandwidth_gbps"; it must replay the
#               streams of bench/hbm_streams.h
#
# Both rates are CPU time: npusim's is Google Benchmark's items_per_second; DRAMsim3's is the
# request count over the driver process's user + system seconds (its own "req_per_s" is wall
# time, which on a loaded machine makes DRAMsim3 look several times slower than it is). The
# driver's process time includes building the stream and the MemorySystem (a few ms).
# BUILD_DIR     npusim's build (default: build), with bench/bench_hbm_engine built
set -eu
ds3=${1:?DRAMSIM3_DIR}; driver=${2:?DRIVER}; build=${3:-build}
engine="$build/bench/bench_hbm_engine"
[ -x "$engine" ] || { echo "compare_dramsim3: $engine not built" >&2; exit 2; }
[ -x "$driver" ] || { echo "compare_dramsim3: driver '$driver' is not executable" >&2; exit 2; }
ini=$(mktemp /tmp/hbm2_ini.XXXXXX)
trap 'rm -f "$ini" "$ini.json"' EXIT
sed 's/^output_level *=.*/output_level = 0/' "$ds3/configs/HBM2_8Gb_x128.ini" > "$ini"
"$engine" --benchmark_format=json --benchmark_repetitions=1 > "$ini.json"
gib8=8589934592; gib1=1073741824
printf '%-26s %14s %14s %8s %10s %10s\n' workload "npusim req/s" "DRAMsim3 req/s" ratio "np GB/s" "ds3 GB/s"
run() {  # benchmark name, then the driver's arguments
  name=$1; shift
  np=$(python3 -c "import json,sys; b=[x for x in json.load(open(sys.argv[1]))['benchmarks'] if x['name']==sys.argv[2]][0]; print(b['items_per_second'], b['GBps'])" "$ini.json" "$name")
  ds=$(python3 -c "
import json, resource, subprocess, sys
out = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
r = resource.getrusage(resource.RUSAGE_CHILDREN)
j = json.loads(out.decode().splitlines()[0])
print(int(sys.argv[4]) / (r.ru_utime + r.ru_stime), j['bandwidth_gbps'])" "$driver" "$ini" "$@")
  set -- $np $ds
  python3 -c "import sys; a,b,c,d=map(float,sys.argv[2:]); print('%-26s %14.0f %14.0f %7.0fx %10.2f %10.2f' % (sys.argv[1], a, c, a/c, b, d))" "$name" "$1" "$2" "$3" "$4"
}
run BM_seq_saturated seq 100000 8 0 1 1 $gib8
run BM_random_saturated random 100000 8 0 1 1 $gib8
run BM_stride256_saturated stride:256 100000 8 0 1 1 $gib8
run BM_stride4k_saturated stride:4096 100000 8 0 1 1 $gib8
run BM_stride16k_saturated stride:16384 100000 8 0 1 1 $gib8
run BM_seq_o1 seq 20000 1 1 1 1 $gib8
run BM_random_o1 random 20000 1 1 1 1 $gib8
run BM_stride256_o1 stride:256 20000 1 1 1 1 $gib8
run BM_stride4k_o1 stride:4096 20000 1 1 1 1 $gib8
run BM_stride16k_o1 stride:16384 20000 1 1 1 1 $gib8
run BM_random_mix_saturated random 100000 8 0 0.6666667 1 $gib1
run BM_seq_mix_saturated seq 100000 8 0 0.6666667 1 $gib1
