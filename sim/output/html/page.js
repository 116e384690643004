// npusim HTML report: the page, from the data npusim embedded (one run, or two compared).
// At the end it writes its own check result into #npusim-check for the browser test.
(function () {
  "use strict";
  var started = performance.now();
  var origError = console.error;
  console.error = function () {
    NPU.errors.push("console.error: " + Array.prototype.join.call(arguments, " "));
    origError.apply(console, arguments);
  };
  window.addEventListener("error", function (e) { NPU.errors.push("error: " + e.message); });
  var el = NPU.el;
  var app = document.getElementById("app");

  function section(title, id) {
    var s = el(app, "section", "section");
    s.id = id;
    el(s, "h2", "", title);
    return s;
  }
  function table(parent, cols, rows, cls) {
    var t = el(parent, "table", cls || "");
    var tr = el(el(t, "thead"), "tr");
    cols.forEach(function (c) { el(tr, "th", "", c); });
    var tb = el(t, "tbody");
    rows.forEach(function (r) {
      var row = el(tb, "tr");
      r.forEach(function (c) {
        var td = el(row, "td", c && c.cls ? c.cls : "", c && c.text !== undefined ? c.text : NPU.fmtNum(c));
        if (c && c.title) td.title = c.title;
      });
    });
    return t;
  }
  function delta(a, b) {
    if (typeof a !== "number" || typeof b !== "number") return [{text: ""}, {text: ""}];
    var d = b - a, pct = a !== 0 ? (100 * d / Math.abs(a)).toFixed(1) + " %" : (d === 0 ? "0 %" : "new");
    var cls = d === 0 ? "same" : "changed";
    return [{text: (d > 0 ? "+" : "") + NPU.fmtNum(d), cls: cls}, {text: pct, cls: cls}];
  }
  // A table of numeric fields; with two runs, each value with B - A.
  function valueTable(parent, title, objs, keys) {
    if (title) el(parent, "h3", "", title);
    if (!keys) {
      keys = [];
      objs.forEach(function (o) {
        Object.keys(o || {}).forEach(function (k) {
          if (keys.indexOf(k) < 0 && (o[k] === null || typeof o[k] !== "object")) keys.push(k);
        });
      });
    }
    var cols = objs.length > 1 ? ["", "A", "B", "B - A", "change"] : ["", "value"];
    return table(parent, cols, keys.map(function (k) {
      var vals = objs.map(function (o) { return o && o[k] !== undefined ? o[k] : ""; });
      return objs.length > 1 ? [{text: k}].concat(vals, delta(vals[0], vals[1])) : [{text: k}].concat(vals);
    }), "values");
  }
  // One column per run (side by side when two are compared).
  function columns(parent, runs, fn) {
    var row = el(parent, "div", "cols cols-" + runs.length);
    runs.forEach(function (run, i) {
      var c = el(row, "div", "col");
      if (runs.length > 1) el(c, "div", "run-label", run.label + ": " + run.name);
      fn(c, run, i);
    });
  }

  function render(data) {
    var runs = data.runs.map(function (d, i) {
      var r = d.report, sc = r.scenario || {};
      return {d: d, r: r, t: d.trace, label: data.runs.length > 1 ? "AB"[i] : "", name: sc.name || d.report_file,
              id: "r" + i, end: d.trace ? d.trace.end_us : (r.duration_ns || 0) / 1000};
    });
    var end = d3.max(runs, function (x) { return x.end; }) || 1;
    var width = runs.length > 1 ? 520 : 1040;
    el(app, "h1", "", "npusim report: " + runs.map(function (x) { return x.name; }).join(" vs "));
    el(app, "div", "generator", "page written by " + data.generator);

    var head = section(runs.length > 1 ? "Runs" : "Run", "run");
    columns(head, runs, function (c, run) {
      var r = run.r, o = r.outcome || {}, p = r.platform || {};
      var st = el(c, "div", "status " + (o.exit_code === 0 ? "pass" : "fail"),
                  (o.exit_code === 0 ? "PASS" : "FAIL") + " (" + (o.status || "?") + ", exit " + o.exit_code + ")");
      st.id = run.id + "-status";
      var ovr = (p.overrides || []).map(function (s) { return s.key + "=" + s.value; }).join(", ") || "none";
      table(c, ["", ""], [
        [{text: "scenario"}, {text: (r.scenario || {}).name || ""}],
        [{text: "file"}, {text: (r.scenario || {}).file || ""}],
        [{text: "description"}, {text: (r.scenario || {}).description || ""}],
        [{text: "platform"}, {text: p.name || ""}],
        [{text: "overrides"}, {text: ovr}],
        [{text: "npusim version"}, {text: r.npusim_version || (r.npusim || {}).version || "not recorded in the report"}],
        [{text: "simulated time"}, {text: NPU.fmtUs((r.duration_ns || 0) / 1000)}],
        [{text: "report / trace"}, {text: run.d.report_file + " / " + (run.d.trace_file || "no trace given")}]
      ], "kv");
      if (o.fault) el(c, "div", "fault", "fault: " + (o.fault.kind || "") + ": " + (o.fault.message || ""));
      var kc = (r.op || {}).kernel_code;
      if (kc && kc.timed === false)
        el(c, "p", "warn", "kernel code not modelled: " + (r.op.kernel || "the kernel") + " was built without the npusim " +
           "kernel-cost pass, so its own arithmetic, loops and TCM/stack accesses took no simulated time; build it " +
           "with `npusim op build` (or npusim_add_custom_op) to time them");
      el(c, "h3", "", "Expectations");
      var ex = o.expectations || [];
      if (!ex.length) el(c, "p", "note", "none (a fault or a violation fails the run)");
      else table(c, ["", "key", "op", "expected", "actual", "at"], ex.map(function (e) {
        return [{text: e.ok ? "\u2714" : "\u2718", cls: e.ok ? "ok" : "bad"}, {text: e.key}, {text: e.op},
                {text: String(e.expected)}, e.actual_text !== undefined ? {text: e.actual_text} : e.actual, {text: e.at || ""}];
      }), "expect");
      var tr = Object.keys(run.d.truncated || {});
      if (tr.length) el(c, "p", "note", "lists shortened in this page: " + tr.map(function (k) {
        return k + " (" + run.d.truncated[k] + " in the report)"; }).join(", "));
    });

    var met = section(runs.length > 1 ? "Metrics (B - A)" : "Metrics", "metrics");
    var holder = runs.length > 1 ? met : el(met, "details");
    if (runs.length === 1) el(holder, "summary", "", "every expectation key with its value");
    valueTable(holder, null, runs.map(function (x) { return x.r.metrics || {}; }));

    var tl = section("Timeline", "timeline");
    runs.forEach(function (run) {
      if (!run.t) { el(tl, "p", "note", (run.label ? run.label + ": " : "") + "no trace given (npusim report --trace): no timeline"); return; }
      var rows = run.t.rows.filter(function (r) { return r.s.length || r.m.length; }).map(function (r) {
        return {label: r.group + " / " + r.name, s: r.s, m: r.m};
      });
      var merged = run.t.rows.filter(function (r) { return r.s.length / 4 < r.n; }).length;
      if (merged) el(tl, "p", "note", merged + " row(s) downsampled: nearby bars are merged (their tooltips count them)");
      NPU.timeline(tl, {id: run.id + "-timeline", title: (run.label ? run.label + ": " : "") + "per core and DMA channel",
                        rows: rows, names: run.t.names, end: end, link: "time"});
    });

    heapsSection(runs, end, width);
    memoriesSection(runs, end, width);
    energySection(runs, end, width);
    dmaSection(runs, width);
    faultsSection(runs);
    stackSection(runs, width);
  }

  function counter(run, group, name) {
    if (!run.t) return null;
    for (var i = 0; i < run.t.counters.length; i++) {
      var c = run.t.counters[i];
      if ((group === null || c.group === group) && c.name === name) return c;
    }
    return null;
  }
  // Address ranges to shade on heap `h`'s map: the layout lint's overlaps; on a torch op's
  // dataram heaps, the heap header when it lies inside the pool.
  function overlaps(r, h) {
    var out = (r.layout_warnings || []).map(function (w) {
      var m = /in \[0x([0-9a-f]+), 0x([0-9a-f]+)\)/.exec(w);
      return m ? [parseInt(m[1], 16), parseInt(m[2], 16), w] : null;
    }).filter(function (x) { return x; });
    var dl = r.dataram_layout;
    if (dl && dl.header_in_pool && /_dataram$/.test(h))
      out.push([dl.heap_header[0], dl.heap_header[1], "the dataram heap header (" + dl.name + " layout) lies inside the pool"]);
    return out;
  }
  // Objects of one run side by side: a row per numeric field, a column per object.
  function sideTable(parent, names, objs) {
    var keys = [];
    objs.forEach(function (o) {
      Object.keys(o || {}).forEach(function (k) { if (keys.indexOf(k) < 0 && typeof o[k] !== "object") keys.push(k); });
    });
    return table(parent, [""].concat(names), keys.map(function (k) {
      return [{text: k}].concat(objs.map(function (o) { return o && o[k] !== undefined ? o[k] : {text: ""}; }));
    }), "values");
  }

  function heapsSection(runs, end, width) {
    var names = [];
    runs.forEach(function (run) {
      Object.keys(run.r.heaps || {}).concat(Object.keys(run.t ? run.t.heaps : {})).forEach(function (h) {
        if (names.indexOf(h) < 0) names.push(h);
      });
    });
    if (!names.length) return;
    var s = section("Heaps", "heaps");
    // One run: every heap's counters in one table; two runs: each heap's, A against B.
    if (runs.length === 1 && Object.keys(runs[0].r.heaps || {}).length)
      sideTable(s, Object.keys(runs[0].r.heaps), Object.keys(runs[0].r.heaps).map(function (h) { return runs[0].r.heaps[h]; }));
    if (runs.some(function (run) {
      var hs = run.r.heaps || {};
      return Object.keys(hs).some(function (h) { return hs[h].unused_bytes_firmware !== undefined; });
    }))
      el(s, "p", "note", "peak_used and the allocated bytes count each block whole, its header included (a 4 KiB " +
         "dataram allocation is 4116 bytes). unused_bytes_firmware is the firmware's own _unused_bytes counter, " +
         "which only grows (its free adds the alignment slack in unsigned arithmetic); unused_bytes_true is the " +
         "slack the live allocations hold");
    names.forEach(function (h) {
      el(s, "h3", "", "heap " + h);
      var rh = runs.map(function (run) { return (run.r.heaps || {})[h]; });
      if (runs.length > 1 && rh.some(function (x) { return x; })) valueTable(s, null, rh.map(function (x) { return x || {}; }));
      columns(s, runs, function (c, run) {
        var th = run.t ? run.t.heaps[h] : null, rep = (run.r.heaps || {})[h];
        var bytes = counter(run, "heaps", h + " bytes");
        if (bytes) {
          var pool = rep ? rep.pool_size : th && th.pool ? th.pool[1] : 0;
          var free = bytes.series.free_bytes || [], used = [];
          for (var k = 0; k + 1 < free.length; k += 2) used.push(free[k], pool - free[k + 1]);
          NPU.lines(c, {id: run.id + "-heap-" + h + "-occupancy", title: "occupancy and largest free block", width: width,
                        series: [{name: "used bytes", pts: used}, {name: "largest free block", pts: bytes.series.largest_free || []}],
                        end: end, link: "time", yFormat: NPU.fmtBytes});
        }
        if (th && (th.blocks.length || th.failed.length || th.bad_frees.length)) {
          if (th.n > th.blocks.length / 5)
            el(c, "p", "note", "heap map: the " + th.blocks.length / 5 + " longest-lived of " + th.n + " blocks");
          NPU.heapMap(c, {id: run.id + "-heapmap-" + h, title: "heap map: address x time", blocks: th.blocks, pool: th.pool,
                          failed: th.failed, badFrees: th.bad_frees, overlaps: overlaps(run.r, h), end: end});
        } else if (!run.t) {
          el(c, "p", "note", "no trace given: no occupancy over time, no heap map");
        }
      });
    });
  }

  function memoriesSection(runs, end, width) {
    var s = section("Memories", "memories");
    columns(s, runs, function (c, run) {
      var mems = run.r.memories || (run.r.l3 ? {l3: run.r.l3} : {});
      Object.keys(mems).forEach(function (m) {
        var opened = (mems[m].row_hits || 0) + (mems[m].row_misses || 0) + (mems[m].row_conflicts || 0);
        el(c, "h3", "", m + (opened > 0 ? " (row-hit rate " + (100 * mems[m].row_hit_rate).toFixed(1) + " %)" : ""));
        var bw = counter(run, "memories", m + " bandwidth");
        if (bw) NPU.lines(c, {id: run.id + "-mem-" + m + "-bandwidth", title: "bandwidth over time (GB/s)", width: width,
                              series: [{name: "GB/s", pts: bw.series["GB/s"] || []}], end: end, link: "time"});
        var lat = run.t ? run.t.latency[m] : null;
        if (lat) NPU.latencyHistogram(c, {id: run.id + "-mem-" + m + "-latency", title: "latency histogram (ns, " + lat.count + " requests)",
                                          quantiles: lat.quantiles_ns, width: Math.min(width, 700)});
        var rows = mems[m].row_hits + mems[m].row_misses + mems[m].row_conflicts;
        if (rows > 0) NPU.bars(c, {id: run.id + "-mem-" + m + "-rows", title: "row outcomes per burst", width: 360,
                                   items: [{label: "hits", values: [mems[m].row_hits]}, {label: "misses", values: [mems[m].row_misses]},
                                           {label: "conflicts", values: [mems[m].row_conflicts]}]});
      });
      if (!Object.keys(mems).length && !run.r.clusters)
        el(c, "p", "note", "this report has no per-memory statistics (the Metrics table has its totals)");
      var clusters = run.r.clusters || [];
      clusters.forEach(function (cl) {
        el(c, "h3", "", "TCDM of cluster " + cl.cluster + " (" + ((cl.tcdm || {}).conflicts || 0) + " bank conflicts)");
        var tc = counter(run, "cluster " + cl.cluster, "tcdm bank conflicts");
        if (tc) {
          var key = Object.keys(tc.series)[0];
          NPU.lines(c, {id: run.id + "-tcdm-" + cl.cluster + "-time", title: "bank conflicts over time", width: width,
                        series: [{name: key, pts: tc.series[key]}], end: end, link: "time"});
        }
        var cores = (run.r.cores || []).filter(function (x) { return x.cluster === cl.cluster && x.tcdm_conflicts !== undefined; });
        if (cores.length) NPU.bars(c, {id: run.id + "-tcdm-" + cl.cluster + "-cores", title: "bank conflicts and stall cycles per core",
                                       width: width, series: ["conflicts", "stall cycles"], items: cores.map(function (x) {
                                         return {label: String(x.core), values: [x.tcdm_conflicts, x.tcdm_stall_cycles]}; })});
        var byBank = (cl.tcdm || {}).conflicts_by_bank;
        if (byBank && byBank.length) NPU.bars(c, {id: run.id + "-tcdm-" + cl.cluster + "-banks", title: "conflicts per bank", width: width,
                                                  items: byBank.map(function (v, i) { return {label: String(i), values: [v]}; })});
      });
    });
    // One run: every memory's counters in one table (bytes per memory); two runs: A against B.
    if (runs.length === 1 && Object.keys(runs[0].r.memories || {}).length) {
      el(s, "h3", "", "counters per memory");
      var mm = runs[0].r.memories;
      sideTable(s, Object.keys(mm), Object.keys(mm).map(function (m) { return mm[m]; }));
    } else if (runs.some(function (x) { return x.r.memories; })) {
      Object.keys(runs[0].r.memories || {}).forEach(function (m) {
        valueTable(s, m + " (B - A)", runs.map(function (x) { return (x.r.memories || {})[m] || {}; }));
      });
    }
  }

  // The report's `energy` (docs/energy.md): by component and part, and the memories' power
  // over time.
  function energySection(runs, end, width) {
    if (!runs.some(function (x) { return x.r.energy; })) return;
    var s = section("Energy", "energy");
    columns(s, runs, function (c, run) {
      var e = run.r.energy;
      if (!e) { el(c, "p", "note", "no energy in this report"); return; }
      el(c, "p", "", "total " + (e.total_pj / 1e6).toPrecision(4) + " \u00b5J, " + e.average_power_mw.toPrecision(4) +
         " mW on average over " + NPU.fmtUs(e.duration_ns / 1000));
      var comps = (e.components || []).filter(function (x) { return x.total_pj > 0; });
      var parts = [];
      comps.forEach(function (x) { Object.keys(x.parts).forEach(function (p) { if (parts.indexOf(p) < 0) parts.push(p); }); });
      if (comps.length)
        NPU.bars(c, {id: run.id + "-energy-components", title: "energy by component and part (pJ)", width: width, series: parts,
                     items: comps.map(function (x) { return {label: x.name, values: parts.map(function (p) { return x.parts[p] || 0; })}; })});
      var series = [];
      (e.components || []).forEach(function (x) {
        if (!x.power_mw || !x.power_mw.values.length) return;
        var pts = [];
        x.power_mw.values.forEach(function (v, i) { pts.push(i * x.power_mw.window_ns / 1000, v); });
        series.push({name: x.name, pts: pts});
      });
      if (series.length)
        NPU.lines(c, {id: run.id + "-energy-power", title: "memory power over time (mW)", width: width, series: series,
                      end: end, link: "time"});
      if (comps.length)
        table(c, ["component", "kind", "pJ", "average mW"], comps.map(function (x) {
          return [{text: x.name}, {text: x.kind}, x.total_pj, x.average_power_mw];
        }), "values");
    });
  }

  function dmaSection(runs, width) {
    var s = section("DMA and cores", "dma");
    columns(s, runs, function (c, run) {
      var ch = (run.r.dma || {}).channels || [];
      (run.r.clusters || []).forEach(function (cl) {
        (Array.isArray(cl.dma) ? cl.dma : []).forEach(function (d, i) {
          ch.push(Object.assign({channel: "c" + cl.cluster + " ch" + i}, d));
        });
      });
      if (ch.length) {
        NPU.bars(c, {id: run.id + "-dma-bytes", title: "bytes per DMA channel", width: width,
                     items: ch.map(function (x) { return {label: String(x.channel), values: [x.bytes || 0]}; }), fmt: NPU.fmtBytes});
        // One row per channel (the table of one run; valueTable's columns are runs).
        var chKeys = [];
        ch.forEach(function (x) {
          Object.keys(x).forEach(function (k) {
            if (chKeys.indexOf(k) < 0 && (x[k] === null || typeof x[k] !== "object")) chKeys.push(k);
          });
        });
        el(c, "h3", "", "DMA channels");
        table(c, chKeys, ch.map(function (x) {
          return chKeys.map(function (k) { return typeof x[k] === "number" ? x[k] : {text: x[k] === undefined || x[k] === null ? "" : String(x[k])}; });
        }), "values");
      }
      var cores = run.r.cores || [];
      if (cores.length && cores[0].breakdown_cycles) {
        // torch ops: where each core's time goes; the kinds add up to the core's cycles.
        var kinds = Object.keys(cores[0].breakdown_cycles);
        NPU.bars(c, {id: run.id + "-core-breakdown", title: "cycles per core by kind (stacked: the core's cycles)", width: width,
                     series: kinds, stacked: true,
                     items: cores.map(function (x) { return {label: String(x.core), values: kinds.map(function (k) { return x.breakdown_cycles[k]; })}; })});
        table(c, ["core"].concat(kinds, ["cycles"]), cores.map(function (x) {
          return [{text: String(x.core)}].concat(kinds.map(function (k) { return x.breakdown_cycles[k]; }), [x.cycles]);
        }), "values");
      }
      var progs = cores.filter(function (x) { return x.program && typeof x.program === "object" && x.program.stall_cycles; });
      if (progs.length) {
        // RV32 programs: each core's instructions, cycles, IPC and stall cycles by cause.
        // The memory targets are the platform's (tcdm, l3, other; dataram, hbm, fwmem), the other
        // causes those the programs' cores have.
        var causes = ["dependency"], seen = {};
        progs.forEach(function (x) {
          Object.keys(x.program.stall_cycles.memory || {}).forEach(function (k) { seen["memory " + k] = 1; });
          Object.keys(x.program.stall_cycles).forEach(function (k) { if (k !== "memory" && k !== "dependency") seen[k] = 1; });
        });
        causes = causes.concat(Object.keys(seen));
        var stall = function (p, k) {
          var s = p.stall_cycles;
          return k.indexOf("memory ") === 0 ? ((s.memory || {})[k.substring(7)] || 0) : (s[k] || 0);
        };
        NPU.bars(c, {id: run.id + "-program-stalls", title: "stall cycles per core by cause (stacked)", width: width,
                     series: causes, stacked: true,
                     items: progs.map(function (x) { return {label: x.name, values: causes.map(function (k) { return stall(x.program, k); })}; })});
        el(c, "h3", "", "programs");
        table(c, ["core", "end", "exit code", "instructions", "cycles", "IPC"].concat(causes), progs.map(function (x) {
          var p = x.program;
          return [{text: x.name}, {text: String(p.end)}, {text: p.exit_code === null ? "" : String(p.exit_code)},
                  p.instructions, p.cycles, p.ipc].concat(causes.map(function (k) { return stall(p, k); }));
        }), "values");
      }
      if (cores.length) table(c, Object.keys(cores[0]).filter(function (k) { return typeof cores[0][k] !== "object"; }),
        cores.map(function (x) { return Object.keys(cores[0]).filter(function (k) { return typeof cores[0][k] !== "object"; })
          .map(function (k) { return typeof x[k] === "number" ? x[k] : {text: String(x[k])}; }); }), "values");
      if (cores.length && cores[0].tcm_accesses !== undefined)
        el(c, "p", "note", "hbm_accesses: standard-accessor element accesses; tcm_accesses: stream-accessor element " +
           "accesses through their TCM buffer. A kernel's own loads and stores through a tcm_malloc pointer are " +
           "neither: the kernel-cost pass charges them as tcm_stack cycles, so tcm_accesses can be 0 beside " +
           "many tcm_stack cycles");
    });
  }

  function faultsSection(runs) {
    var s = section("DMA window violations, traps and faults", "faults");
    columns(s, runs, function (c, run) {
      var r = run.r, rows = [];
      (r.violations || []).forEach(function (v) {
        rows.push([v.time_ns, {text: "DMA " + v.kind + (v.side ? " (" + v.side + " " + v.bound + ")" : "")},
                   {text: v.call_site || ""}, {text: v.message || v.assertion || ""}]);
      });
      (r.traps || []).forEach(function (t) {
        rows.push([t.time_ns, {text: "trap on " + t.name}, {text: (t.call || "") + " @ " + (t.step || "")},
                   {text: "size " + t.size + " at " + t.addr + ", " + (t.past_end !== undefined ? t.past_end + " B past the end, " : "") + (t.action || "")}]);
      });
      (r.diagnostics || []).forEach(function (d) {
        rows.push([{text: ""}, {text: d.severity + " " + d.kind + " (core " + d.core + ")"}, {text: d.call || ""}, {text: d.message || ""}]);
      });
      if (r.outcome && r.outcome.fault) {
        var f = r.outcome.fault;
        rows.push([f.time_ns !== undefined ? f.time_ns : {text: ""}, {text: "fault: " + f.kind}, {text: f.step || ""}, {text: f.message || ""}]);
      }
      if (rows.length) table(c, ["time (ns)", "what", "issued by", "details"], rows, "events");
      else el(c, "p", "note", "no DMA window violation, trap or fault");
      var tf = run.t ? run.t.faults : [];
      if (tf.length) {
        el(c, "h3", "", "in the trace (" + run.t.faults_total + ")");
        table(c, ["time", "event", "row", "step / call"], tf.map(function (e) {
          return [{text: NPU.fmtUs(e.ts)}, {text: e.name}, {text: e.row}, {text: e.args.step || e.args.call_site || e.args.message || ""}];
        }), "events");
      }
    });
  }

  function stackSection(runs, width) {
    var s = section("Stack high-water per core", "stack");
    columns(s, runs, function (c, run) {
      var st = run.r.stack;
      if (st && st.cores) {
        // torch ops: each GPSIMD core's kernel stack (measured on the host at every library call
        // and element access) and the library calls' frames on its local and HBM stacks.
        NPU.bars(c, {id: run.id + "-stack", title: "GPSIMD cores: bytes", width: Math.min(width, 520), fmt: NPU.fmtBytes,
                     series: ["kernel stack high-water (host-measured)", "library frames, local stack", "library frames, HBM stack"],
                     items: st.cores.map(function (x) {
                       return {label: String(x.core), values: [x.kernel_high_water, x.high_water, x.hbm_high_water]}; })});
        el(c, "p", "note", "limit " + NPU.fmtBytes(st.limit) + " per core (STACK_SIZE, else the core's local stack)" +
           (st.cores.some(function (x) { return x.hbm_stack_size; }) ? "; HBM stacks of " + NPU.fmtBytes(st.cores[0].hbm_stack_size) : ""));
      } else if (st) {
        NPU.bars(c, {id: run.id + "-stack", title: "mgmt_core: bytes", width: Math.min(width, 520), fmt: NPU.fmtBytes,
                     series: ["local stack high-water", "HBM stack high-water", "HBM stack size"],
                     items: [{label: "mgmt_core", values: [st.high_water, st.hbm_high_water, st.hbm_stack_size]}]});
        el(c, "p", "note", "HBM stack " + (st.hbm_stack ? NPU.hex(st.hbm_stack) : "none") + (st.switched ? ", switched to at the end" : ""));
      } else {
        el(c, "p", "note", "this kind of run records no stack high-water (see the diagnostics above for stack faults)");
      }
      var mk = run.r.markers || [];
      if (mk.length) {
        el(c, "h3", "", "markers");
        table(c, ["time (ns)", "text"], mk.map(function (m) { return [m.time_ns, {text: m.text}]; }), "events");
      }
      (run.r.layout_warnings || []).forEach(function (w) { el(c, "p", "warn", "layout: " + w); });
    });
  }

  try {
    render(JSON.parse(document.getElementById("npusim-data").textContent));
  } catch (e) {
    NPU.errors.push("exception: " + (e && e.stack ? e.stack : e));
  }
  var check = document.getElementById("npusim-check");
  var bad = NPU.charts.filter(function (c) { return c.expected === 0 || c.drawn !== c.expected; });
  check.setAttribute("data-status", NPU.errors.length || bad.length ? "fail" : "ok");
  check.setAttribute("data-charts", NPU.charts.map(function (c) { return c.id + ":" + c.drawn + "/" + c.expected; }).join(" "));
  // Render: this script's own time; load: from the start of navigation (parsing included).
  check.setAttribute("data-render-ms", String(Math.round(performance.now() - started)));
  check.setAttribute("data-load-ms", String(Math.round(performance.now())));
  check.textContent = NPU.errors.join("\n");
})();
