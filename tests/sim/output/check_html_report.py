#!/usr/bin/env python3
"""Generates one kind of npusim HTML report and loads it in headless Chromium.

Fails (exit 1) on any console message, on a page whose own check (the #npusim-check element
page.js fills in) is not "ok", or when a chart the report's data calls for is missing.

  check_html_report.py --npusim BIN --chromium BIN --out DIR --kind KIND SCENARIO [options]

KIND: single (run with --report and --trace, then `npusim report --trace --html`), notrace
(`npusim report REPORT --html`), compare (two runs: SCENARIO, and --scenario-b or SCENARIO with
--set-b), run (`npusim run --html`), sweep (SCENARIO is a sweep file: `npusim sweep -j 2`, then
`npusim report --sweep DIR --html`). --inject-js inserts a script after the page's data,
before its own scripts (the negative tests: a broken page must fail). --no-browser generates the
page and checks its data without loading it (the sanitizer build: the page's scripts are the
same in every build, and the release build loads every page in the browser).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def sh(cmd, ok_codes=(0,)):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode not in ok_codes:
        fail("%s: exit %d\n%s%s" % (" ".join(cmd), p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
    return p


def run_sim(a, scenario, sets, stem, trace=True, extra=()):
    report = os.path.join(a.out, stem + ".report.json")
    cmd = [a.npusim, "run"] + a.plugin_args + [scenario, "--report", report]
    for s in sets:
        cmd += ["--set", s]
    tr = None
    if trace:
        tr = os.path.join(a.out, stem + ".trace.json")
        cmd += ["--trace", tr]
    cmd += list(extra)
    sh(cmd, ok_codes=(0, 1))  # a scenario may fail its expectations on purpose: still a report
    return report, tr


def expected_charts(report, idx, traced):
    """Chart ids the page must draw for this run's report."""
    r = "r%d-" % idx
    ids = []
    if traced:
        ids.append(r + "timeline")
    for h, v in (report.get("heaps") or {}).items():
        if traced and v.get("allocations", 0) > 0:
            ids += [r + "heap-%s-occupancy" % h, r + "heapmap-%s" % h]
    for m, v in (report.get("memories") or {}).items():
        if traced and v.get("reads", 0) + v.get("writes", 0) > 0:
            ids += [r + "mem-%s-bandwidth" % m, r + "mem-%s-latency" % m]
        if v.get("row_hits", 0) + v.get("row_misses", 0) + v.get("row_conflicts", 0) > 0:
            ids.append(r + "mem-%s-rows" % m)
    for c in report.get("clusters") or []:
        ids += [r + "tcdm-%d-cores" % c["cluster"], r + "tcdm-%d-banks" % c["cluster"]]
        if traced and (c.get("tcdm") or {}).get("conflicts", 0) > 0:
            ids.append(r + "tcdm-%d-time" % c["cluster"])
    if (report.get("dma") or {}).get("channels") or any(c.get("dma") for c in report.get("clusters") or []):
        ids.append(r + "dma-bytes")
    if report.get("stack"):
        ids.append(r + "stack")
    cores = report.get("cores") or []
    if cores and "breakdown_cycles" in cores[0]:
        ids.append(r + "core-breakdown")
    return ids


def expected_marks(report, idx):
    """Marks some charts must draw, counted from the report: a torch run's bars of each core's
    time by kind (every kind of every core) and of each core's stack."""
    r = "r%d-" % idx
    marks = {}
    cores = report.get("cores") or []
    if cores and "breakdown_cycles" in cores[0]:
        marks[r + "core-breakdown"] = sum(len(c["breakdown_cycles"]) for c in cores)
    stack = report.get("stack") or {}
    if "cores" in stack:
        marks[r + "stack"] = 3 * len(stack["cores"])
    return marks


def sweep_charts(results):
    """Chart ids the sweep page must draw: each metric that varies against each swept key."""
    safe = lambda s: re.sub(r"[^A-Za-z0-9_-]", "_", s)
    rows = [json.loads(l, object_pairs_hook=lambda kv: kv) for l in open(results) if l.strip()]
    keys = [k for k, _ in rows[0]]
    params = keys[keys.index("seed" if "seed" in keys else "rep") + 1:keys.index("status")]
    metrics = keys[keys.index("message") + 1:]
    ids = []
    for m in metrics:
        vals = [v for r in rows for k, v in r if k == m and isinstance(v, (int, float))]
        if vals and min(vals) != max(vals):
            ids += ["sweep-%s--%s" % (safe(m), safe(k)) for k in params]
    return ids


def load_in_chromium(a, html):
    profile = tempfile.mkdtemp(prefix="npusim-chromium-")
    try:
        cmd = [a.chromium] + CHROMIUM_FLAGS + ["--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0",
                                               "--virtual-time-budget=10000", "--dump-dom", "file://" + os.path.abspath(html)]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    if p.returncode != 0:
        fail("chromium exit %d: %s" % (p.returncode, p.stderr[-2000:]))
    console = [l for l in p.stderr.splitlines() if ":CONSOLE" in l]
    if console:
        fail("console messages while loading %s:\n%s" % (html, "\n".join(console[:20])))
    m = re.search(r'<div id="npusim-check"([^>]*)>(.*?)</div>', p.stdout, re.S)
    if not m:
        fail("no #npusim-check element in the loaded page (the script did not run?)")
    attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', m.group(1)))
    return attrs, m.group(2), p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--npusim", required=True)
    ap.add_argument("--chromium")
    ap.add_argument("--no-browser", action="store_true")
    ap.add_argument("--out", required=True)
    ap.add_argument("--kind", required=True, choices=["single", "notrace", "compare", "run", "sweep"])
    ap.add_argument("--plugin", default=None)
    ap.add_argument("--scenario-b", default=None)
    ap.add_argument("--set-b", action="append", default=[])
    ap.add_argument("--inject-js", default=None)
    ap.add_argument("scenario")
    a = ap.parse_args()
    if not a.no_browser and not a.chromium:
        ap.error("--chromium is required unless --no-browser is given")
    a.plugin_args = ["--plugin", a.plugin] if a.plugin else []
    os.makedirs(a.out, exist_ok=True)
    stem = os.path.splitext(os.path.basename(a.scenario))[0] + "." + a.kind
    html = os.path.join(a.out, stem + ".html")
    runs = []  # (report path, traced)
    want = []  # chart ids beyond those of the runs' reports
    if a.kind == "sweep":
        sweep_dir = os.path.join(a.out, stem + ".dir")
        shutil.rmtree(sweep_dir, ignore_errors=True)
        sh([a.npusim, "sweep", a.scenario, "-o", sweep_dir, "-j", "2", "-q"], ok_codes=(0, 1))
        sh([a.npusim, "report", "--sweep", sweep_dir, "--html", html])
        want = sweep_charts(os.path.join(sweep_dir, "results.jsonl"))
        if not want:
            fail("the sweep %s has no metric that varies: nothing for the page to draw" % a.scenario)
    elif a.kind == "single":
        rep, tr = run_sim(a, a.scenario, [], stem)
        sh([a.npusim, "report", rep, "--trace", tr, "--html", html])
        runs.append((rep, True))
    elif a.kind == "notrace":
        rep, _ = run_sim(a, a.scenario, [], stem, trace=False)
        sh([a.npusim, "report", rep, "--html", html])
        runs.append((rep, False))
    elif a.kind == "compare":
        ra, ta = run_sim(a, a.scenario, [], stem + ".a")
        rb, tb = run_sim(a, a.scenario_b or a.scenario, a.set_b, stem + ".b")
        sh([a.npusim, "report", ra, rb, "--trace", ta, "--trace", tb, "--html", html])
        runs += [(ra, True), (rb, True)]
    else:
        rep, _ = run_sim(a, a.scenario, [], stem, trace=False, extra=["--html", html])
        runs.append((rep, True))
    page = open(html, encoding="utf-8").read()
    if re.search(r'<(script|link|img|iframe)[^>]+(src|href)=', page):
        fail("the page loads an external resource: it must be self-contained")
    if a.inject_js:
        # Right after the data, before the page's own scripts: it may rewrite the data.
        at = page.index("</script>", page.index('<script id="npusim-data"')) + len("</script>")
        page = page[:at] + "\n<script>" + a.inject_js + "</script>" + page[at:]
        with open(html, "w", encoding="utf-8") as f:
            f.write(page)
    if a.no_browser:
        m = re.search(r'<script id="npusim-data"[^>]*>(.*?)</script>', page, re.S)
        if not m:
            fail("no npusim-data element in %s" % html)
        try:
            data = json.loads(m.group(1))
        except ValueError as e:
            fail("the page's data is not valid JSON: %s" % e)
        if runs and len(data.get("runs", [])) != len(runs):
            fail("the page holds %d runs; %d were given" % (len(data.get("runs", [])), len(runs)))
        if not runs and not data.get("points"):
            fail("the sweep page holds no points")
        print("ok: %s: generated, %d bytes (not loaded: --no-browser)" % (html, len(page)))
        return
    attrs, errors, dom = load_in_chromium(a, html)
    if attrs.get("data-status") != "ok":
        fail("the page's own check says %r: %s\ncharts: %s" % (attrs.get("data-status"), errors.strip(), attrs.get("data-charts")))
    charts = dict(c.split(":", 1) for c in attrs.get("data-charts", "").split())
    marks = {}
    for i, (rep, traced) in enumerate(runs):
        want += expected_charts(json.load(open(rep)), i, traced)
        marks.update(expected_marks(json.load(open(rep)), i))
    for cid in want:
        if cid not in charts:
            fail("chart %s is missing (drawn: %s)" % (cid, " ".join(sorted(charts))))
        drawn, expected = charts[cid].split("/")
        if int(drawn) == 0 or drawn != expected:
            fail("chart %s drew %s of %s marks" % (cid, drawn, expected))
    for cid, n in marks.items():
        if cid not in charts:
            fail("chart %s is missing (drawn: %s)" % (cid, " ".join(sorted(charts))))
        if charts[cid].split("/")[0] != str(n):
            fail("chart %s drew %s marks; the report calls for %d" % (cid, charts[cid].split("/")[0], n))
    # The A / B / B - A / change columns belong to a comparison of two runs; a page of one run
    # has one value column per table.
    compare_heads = re.findall(r'<th[^>]*>(?:B - A|change)</th>', dom)
    if len(runs) == 1 and compare_heads:
        fail("a page of one run shows a comparison's columns (%s)" % ", ".join(sorted(set(compare_heads))))
    if len(runs) == 2 and not compare_heads:
        fail("a comparison of two runs shows no B - A column")
    # The report fields a reader cannot guess are explained where the page shows them.
    reps = [json.load(open(rep)) for rep, _ in runs]
    if any(isinstance(h, dict) and "unused_bytes_firmware" in h for r in reps for h in (r.get("heaps") or {}).values()) \
            and "count each block whole, its header included" not in dom:
        fail("the heaps table shows peak_used and unused_bytes_firmware/true without the note that explains them")
    if any("tcm_accesses" in c for r in reps for c in (r.get("cores") or []) if isinstance(c, dict)) \
            and "tcm_accesses can be 0" not in dom:
        fail("the cores table shows tcm_accesses without the note that explains it")
    print("ok: %s: %d charts, rendered in %s ms, %d bytes" % (html, len(charts), attrs.get("data-render-ms"), len(page)))


if __name__ == "__main__":
    main()
