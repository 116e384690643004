#!/bin/sh
# npusim against DRAMsim3, side by side, on the request streams of docs/energy.md and
# docs/timing-model.md: timing (bandwidth; read latency mean, p50, p99) and energy (each
# component, and the command counts it comes from).
#
#   bench/dramsim3/compare.sh DRAMSIM3_DIR [BUILD_DIR] [--markdown] [STREAM ...]
#
# DRAMSIM3_DIR  a DRAMsim3 checkout built per its README (its configs/HBM2_8Gb_x128.ini is
#               the reference configuration)
# BUILD_DIR     npusim's build (default: build), configured with
#               -DNPUSIM_DRAMSIM3_DIR=DRAMSIM3_DIR so that it holds
#               bench/dramsim3/dramsim3_driver (bench/dramsim3/driver.cpp) beside npusim
# --markdown    the tables as Markdown (docs/energy.md holds them)
# STREAM        only these streams (names as in the first column)
#
# npusim runs `npusim traffic --json` with the .ini's geometry and DRAMsim3's address mapping
# (row,bankgroup,bank,channel,column); the driver replays the same requests through DRAMsim3's
# MemorySystem with the same issue width, outstanding limit and rate. Energy is in µJ (DRAMsim3's
# own figures are mW x cycles, which is pJ at its tCK of 1 ns).
set -eu
ds3=${1:?DRAMSIM3_DIR}
shift
build=build
case ${1:-} in ''|--*) ;; *) [ -d "$1" ] && { build=$1; shift; } ;; esac
driver="$build/bench/dramsim3/dramsim3_driver"
npusim="$build/npusim"
ini="$ds3/configs/HBM2_8Gb_x128.ini"
[ -f "$ini" ] || { echo "compare.sh: $ini not found: DRAMSIM3_DIR must be a DRAMsim3 checkout" >&2; exit 2; }
[ -x "$npusim" ] || { echo "compare.sh: $npusim not built" >&2; exit 2; }
[ -x "$driver" ] || { echo "compare.sh: $driver not built (configure $build with -DNPUSIM_DRAMSIM3_DIR=$ds3)" >&2; exit 2; }
exec /usr/bin/python3 - "$npusim" "$driver" "$ini" "$@" <<'PY'
import json, subprocess, sys
npusim, driver, ini = sys.argv[1:4]
args = sys.argv[4:]
markdown = "--markdown" in args
only = [a for a in args if not a.startswith("--")]
gib8, gib1 = 8589934592, 1073741824
# name, pattern, requests, issue width, outstanding (0: none), read ratio, span, rate (0: none)
streams = [
    ("seq reads", "seq", 100000, 8, 0, 1, gib8, 0),
    ("random reads", "random", 100000, 8, 0, 1, gib8, 0),
    ("seq 2:1 read/write", "seq", 100000, 8, 0, 0.6666667, gib1, 0),
    ("random 2:1 read/write", "random", 100000, 8, 0, 0.6666667, gib1, 0),
    ("seq writes", "seq", 100000, 8, 0, 0, gib1, 0),
    ("random writes", "random", 100000, 8, 0, 0, gib1, 0),
    ("random, 0.25 req/cycle", "random", 100000, 8, 0, 1, gib8, 0.25),
    ("random, 1 outstanding", "random", 20000, 1, 1, 1, gib8, 0),
    ("seq, 1 outstanding", "seq", 20000, 1, 1, 1, gib8, 0),
    ("nearly idle", "random", 1000, 1, 0, 1, gib8, 0.001),
]
# The .ini's geometry (8 GiB: rows of 2 KiB, 32768 per bank), DRAMsim3's max(BL/2, tCCD) for
# tCCD_S/_L, its tRTP_S, its address mapping and its write buffer of trans_queue_size.
sets = ["hbm.rows=32768", "hbm.tCCD_S=2", "hbm.tCCD_L=2", "hbm.tRTP=4",
        "hbm.address_mapping=row,bankgroup,bank,channel,column", "hbm.write_queue_depth=32"]

def npusim_run(s):
    _, pattern, n, width, outstanding, ratio, span, rate = s
    cmd = [npusim, "traffic", "--json", "--pattern", pattern, "--requests", str(n),
           "--issue-width", str(width), "--read-ratio", str(ratio), "--span", str(span)]
    if outstanding: cmd += ["--outstanding", str(outstanding)]
    if rate: cmd += ["--rate", str(rate)]
    for x in sets: cmd += ["--set", x]
    j = json.loads(subprocess.run(cmd, stdout=subprocess.PIPE, check=True).stdout)
    e = j["energy"]
    lat = ("read_latency_mean_cycles", "read_latency_p50_cycles", "read_latency_p99_cycles") \
        if "reads" in j else ("latency_mean_cycles", "latency_p50_cycles", "latency_p99_cycles")
    return {"gbps": j["bandwidth_gbps"], "lat": [j.get(k, 0) for k in lat] if ratio > 0 else None,
            "act": e["act"], "read": e["read"], "write": e["write"], "refresh": e["refresh"],
            "act_standby": e["act_standby"], "pre_standby": e["pre_standby"], "total": e["total"],
            "n_act": e["commands"]["act"], "n_read": e["commands"]["read"],
            "n_write": e["commands"]["write"], "n_ref": e["commands"]["refresh"],
            "cycles": e["cycles"] / 8, "cmd": " ".join(cmd[1:])}

def driver_run(s):
    _, pattern, n, width, outstanding, ratio, span, rate = s
    cmd = [driver, ini, pattern, str(n), str(width), str(outstanding), str(ratio), "1", str(span),
           str(rate)]
    j = json.loads(subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  check=True).stdout)
    sm = {}
    for ch in j["dramsim3"].values():
        for k, v in ch.items():
            if isinstance(v, dict) and k in ("act_stb_energy", "pre_stb_energy"):
                v = sum(v.values())
            if isinstance(v, (int, float)):
                sm[k] = sm.get(k, 0) + v
    return {"gbps": j["bandwidth_gbps"],
            "lat": [j["read_latency_mean_cycles"], j["read_latency_p50_cycles"],
                    j["read_latency_p99_cycles"]] if j["reads"] else None,
            "act": sm["act_energy"], "read": sm["read_energy"], "write": sm["write_energy"],
            "refresh": sm["ref_energy"] + sm["refb_energy"], "act_standby": sm["act_stb_energy"],
            "pre_standby": sm["pre_stb_energy"], "total": sm["total_energy"],
            "n_act": sm["num_act_cmds"], "n_read": sm["num_read_cmds"],
            "n_write": sm["num_write_cmds"], "n_ref": sm["num_ref_cmds"],
            "cycles": sm["num_cycles"] / len(j["dramsim3"])}

def pct(a, b):
    return "" if b == 0 else "%+.1f %%" % (100.0 * (a - b) / b)

results = []
for s in streams:
    if only and s[0] not in only: continue
    results.append((s, driver_run(s), npusim_run(s)))

sep = " | " if markdown else "  "
def row(cells, widths):
    if markdown: return "| " + " | ".join(cells) + " |"
    return sep.join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths)))
def table(head, rows):
    widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
    print(row(head, widths))
    if markdown: print("|" + "|".join("---" for _ in head) + "|")
    for r in rows: print(row(r, widths))
    print()

print("Timing (DRAMsim3 / npusim; latency of reads in cycles: mean / p50 / p99)\n")
rows = []
for s, d, n in results:
    fl = lambda l: "-" if l is None else "%.1f / %d / %d" % (l[0], l[1], l[2])
    rows.append([s[0], "%.2f" % d["gbps"], "%.2f" % n["gbps"], pct(n["gbps"], d["gbps"]),
                 fl(d["lat"]), fl(n["lat"]),
                 "" if d["lat"] is None or n["lat"] is None else pct(n["lat"][0], d["lat"][0])])
table(["stream", "DRAMsim3 GB/s", "npusim GB/s", "", "DRAMsim3 latency", "npusim latency", "mean"], rows)

print("Energy in µJ, summed over the 8 channels (DRAMsim3 / npusim, difference)\n")
comps = [("ACT", "act", "n_act"), ("read", "read", "n_read"), ("write", "write", "n_write"),
         ("refresh", "refresh", "n_ref"), ("standby, a bank open", "act_standby", None),
         ("standby, all closed", "pre_standby", None), ("total", "total", None)]
rows = []
for s, d, n in results:
    cells = [s[0]]
    for label, k, _ in comps:
        cells.append("%.2f / %.2f %s" % (d[k] / 1e6, n[k] / 1e6, pct(n[k], d[k])))
    rows.append(cells)
table(["stream"] + [c[0] for c in comps], rows)

print("Commands and cycles (DRAMsim3 / npusim; cycles per channel)\n")
rows = []
for s, d, n in results:
    rows.append([s[0]] + ["%d / %d" % (d[k], n[k]) for k in ("n_act", "n_read", "n_write")] +
                ["%d / %g" % (d["n_ref"], n["n_ref"]), "%d / %d" % (d["cycles"], n["cycles"])])
table(["stream", "ACT", "RD", "WR", "REF", "cycles"], rows)

print("npusim commands:")
for s, d, n in results:
    print("  " + ("`npusim %s`" % n["cmd"] if markdown else "npusim " + n["cmd"]))
PY
