"""`npusim traffic`: the energy object of --json (and --per-channel), and traces written with
--write-trace and replayed with --trace. Usage: traffic_energy_test.py NPUSIM CHECK TMPDIR."""
import json
import os
import subprocess
import sys

npusim, check, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(tmp, exist_ok=True)
FIELDS = ["act", "read", "write", "refresh", "act_standby", "pre_standby", "total", "average_power_mw"]


def traffic(*args, rc=0):
    p = subprocess.run([npusim, "traffic", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if p.returncode != rc:
        sys.exit("exit %d, expected %d: %s %s\n%s%s" % (p.returncode, rc, npusim, " ".join(args),
                                                         p.stdout, p.stderr))
    return p


def run_json(*args):
    return json.loads(traffic("--json", *args).stdout)


def close(a, b, what):
    if abs(a - b) > 1e-9 * max(1.0, abs(a), abs(b)):
        sys.exit("%s: %r != %r" % (what, a, b))


if check == "fields":
    # Sequential reads: every burst is a read command (804 pJ at the HBM2 defaults), one ACT
    # per 2 KiB row (828 pJ).
    j = run_json("--pattern", "seq", "--requests", "4000")
    e = j["energy"]
    for f in FIELDS:
        if f not in e:
            sys.exit("energy has no '%s': %s" % (f, e))
    close(e["read"], 4000 * 804.0, "read")
    close(e["write"], 0.0, "write")
    close(e["act"], e["commands"]["act"] * 828.0, "act")
    if e["commands"]["act"] != j["row_misses"] + j["row_conflicts"]:
        sys.exit("ACTs %d != misses + conflicts" % e["commands"]["act"])
    close(e["total"], sum(e[f] for f in FIELDS[:6]), "total")
    close(e["average_power_mw"], e["total"] / (e["cycles"] / 8), "average power")
    # Background: 66 mW per channel with a row open, 48 mW with all closed.
    close(e["act_standby"] + e["pre_standby"],
          e["open_cycles"] * 66.0 + (e["cycles"] - e["open_cycles"]) * 48.0, "background")
    # The dataram has no DRAM energy.
    if "energy" in run_json("--memory", "dataram", "--requests", "100", "--size", "8"):
        sys.exit("dataram traffic has an energy object")
elif check == "per_channel":
    j = run_json("--pattern", "random", "--requests", "12000", "--read-ratio", "0.5",
                 "--per-channel")
    e = j["energy"]
    ch = e["channels"]
    if [c["channel"] for c in ch] != list(range(8)):
        sys.exit("channels: %s" % [c["channel"] for c in ch])
    for f in FIELDS[:7]:
        close(sum(c[f] for c in ch), e[f], "sum of channels' " + f)
    if e["write"] <= 0 or e["refresh"] <= 0:
        sys.exit("no write or refresh energy: %s" % e)
    if "channels" in run_json("--pattern", "random", "--requests", "100")["energy"]:
        sys.exit("channels without --per-channel")
    # Pseudo-channels: one entry per pseudo-channel.
    j = run_json("--requests", "500", "--per-channel", "--set", "hbm.pseudo_channels=2", "--set",
                 "hbm.address_mapping=row,bank,column,bankgroup,pseudochannel,channel")
    ch = j["energy"]["channels"]
    if len(ch) != 16 or ch[3]["channel"] != 1 or ch[3]["pseudo_channel"] != 1:
        sys.exit("pseudo-channels: %s" % ch[:4])
elif check == "replay":
    # A generated stream written in each format and replayed under the same limits: the same
    # requests at the same times, so the same timing and energy. With a rate and replayed without
    # it, the timed formats keep the times from their cycles (a rate that is not a whole number
    # of cycles a request too: the run issues on clock edges); the others then issue as fast as
    # the limits allow.
    for limits, rate in ((["--issue-width", "8"], []), (["--issue-width", "8"], ["--rate", "0.25"]),
                         ([], ["--rate", "0.3"])):
        gen_args = ["--pattern", "random", "--requests", "3000", "--read-ratio", "0.7"] + limits + rate
        for fmt in ("dramsim3", "stl", "rstl", "ramulator", "ramulator2"):
            path = os.path.join(tmp, "replay_%s%s%s.%s" % (fmt, "_w" if limits else "", "_" + rate[1] if rate else "",
                                                          "rstl" if fmt == "rstl" else "trace"))
            gen = run_json(*gen_args, "--write-trace", path, "--write-trace-format", fmt)
            with open(path) as f:
                lines = [x for x in f.read().splitlines() if x and not x.startswith("#")]
            if len(lines) != 3000:
                sys.exit("%s: %d lines written" % (fmt, len(lines)))
            timed = fmt in ("dramsim3", "stl", "rstl")
            replays = [("same limits", run_json("--trace", path, *limits, *rate), True)]
            if rate:
                replays.append(("without --rate", run_json("--trace", path, *limits), timed))
            for how, rep, same in replays:
                what = "%s %s%s, %s" % (fmt, " ".join(limits), " at %s/cycle" % rate[1] if rate else "", how)
                if rep["requests"] != 3000 or rep["bytes"] != gen["bytes"]:
                    sys.exit("%s: replayed %d requests, %d bytes" % (what, rep["requests"], rep["bytes"]))
                if same:
                    for k in ("bandwidth_gbps", "latency_mean_cycles", "row_hits", "row_conflicts"):
                        if rep[k] != gen[k]:
                            sys.exit("%s: %s %r replayed, %r generated" % (what, k, rep[k], gen[k]))
                    close(rep["energy"]["total"], gen["energy"]["total"], what + ": energy")
                elif rep["bandwidth_gbps"] <= 1.5 * gen["bandwidth_gbps"]:
                    sys.exit("%s: %r GB/s, not faster than at the rate (%r)" %
                             (what, rep["bandwidth_gbps"], gen["bandwidth_gbps"]))
elif check == "samples":
    # Small traces of the kind each tool ships, replayed as that tool reads them.
    def write(name, text):
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    # DRAMSys: an .rstl's cycles count from the previous request: it replays as the .stl with
    # the running sums, and not as its own numbers read as absolute cycles.
    gaps = [31, 2, 0, 40, 17, 300, 5, 0, 1, 90]
    cmds = ["read", "read", "write", "read", "write", "read", "read", "read", "write", "read"]
    rel, ab, at = [], [], 0
    for k, (g, c) in enumerate(zip(gaps, cmds)):
        at += g
        data = " 0x" + "5a" * 64 if c == "write" else ""
        rel.append("%d: %s 0x%x%s" % (g, c, 0x400140 + 0x2000 * k, data))
        ab.append("%d: %s 0x%x%s" % (at, c, 0x400140 + 0x2000 * k, data))
    r = run_json("--trace", write("s.rstl", "# relative\n" + "\n".join(rel) + "\n"))
    a = run_json("--trace", write("s.stl", "\n".join(ab) + "\n"))
    r.pop("pattern"), a.pop("pattern")
    if r != a:
        sys.exit(".rstl %s\n!= its .stl %s" % (r, a))
    as_abs = run_json("--trace", os.path.join(tmp, "s.rstl"), "--trace-format", "stl")
    if r["elapsed_ns"] <= as_abs["elapsed_ns"]:
        sys.exit(".rstl: %r ns, its gaps read as absolute cycles %r ns" % (r["elapsed_ns"], as_abs["elapsed_ns"]))
    # DRAMSys .stl with a burst's write data (64 bytes: 128 hex digits) and a (length).
    j = run_json("--trace", write("burst.stl", "0: write 0x0 0x" + "0f" * 64 + "\n8: (32) write 0x40 0x" +
                                  "e1" * 32 + "\n16: read 0x0\n"))
    if j["requests"] != 3 or j["bytes"] != 64 + 32 + 64 or j["reads"] != 1:
        sys.exit("burst.stl: %s" % j)
    # Ramulator: an address alone is a read.
    j = run_json("--trace", write("addr.trace", "0x12345680\n0x4cbd56c0 W\n0x12345700\n"))
    if j["requests"] != 3 or j["reads"] != 2:
        sys.exit("ramulator address-only lines: %s" % j)
    # Ramulator 2's instruction traces: refused as such.
    inst = write("inst.trace", "3 10485824\n1 10485888\n6 20971584 20971584\n")
    p = traffic("--trace", inst, rc=2)
    if inst + ":1: an instruction trace line" not in p.stderr or "not a memory request" not in p.stderr:
        sys.exit("message: " + p.stderr)
elif check == "bad":
    bad = os.path.join(tmp, "bad.trace")
    with open(bad, "w") as f:
        f.write("0x40 READ 1\n0x80 READ 2\n0x80 STORE 3\n")
    p = traffic("--trace", bad, rc=2)
    if bad + ":3: not READ or WRITE" not in p.stderr or "(at 'STORE')" not in p.stderr:
        sys.exit("message: " + p.stderr)
    far = os.path.join(tmp, "far.trace")
    with open(far, "w") as f:
        f.write("0x40 R\n\n0x400000000 W\n")
    p = traffic("--trace", far, rc=2)
    if far + ":3: 64 bytes from this address run past the end of the hbm" not in p.stderr \
            or "(at '0x400000000')" not in p.stderr:
        sys.exit("message: " + p.stderr)
    p = traffic("--trace", far, "--trace-format", "drampower", rc=2)
    if "--trace-format" not in p.stderr or "drampower" not in p.stderr:
        sys.exit("message: " + p.stderr)
    p = traffic("--write-trace", os.path.join(tmp, "no", "such", "dir.trace"), "--requests", "10", rc=2)
    if "--write-trace" not in p.stderr or "cannot be written" not in p.stderr:
        sys.exit("message: " + p.stderr)
else:
    sys.exit("unknown check " + check)
