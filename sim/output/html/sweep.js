// npusim sweep plots: every metric of a sweep against every swept parameter, from the data
// npusim embedded (results.jsonl). At the end it writes its own check into #npusim-check.
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

  // Chart ids: the browser test computes the same from results.jsonl.
  function safe(s) { return String(s).replace(/[^A-Za-z0-9_-]/g, "_"); }
  function num(s) { var v = typeof s === "number" ? s : parseFloat(s); return isFinite(v) && String(+s) === String(s).trim() ? v : null; }
  var OK = {ok: true};

  // One metric against one parameter: a dot per point (failed points red), the mean per value
  // as a line. Numeric parameters on a linear axis, others in order of first appearance.
  function scatter(parent, o) {
    var f = NPU.frame(parent, {id: o.id, title: o.title, height: 190, width: 340, left: 64});
    var pts = o.pts;
    var numeric = pts.every(function (p) { return num(p.x) !== null; });
    var x;
    if (numeric) {
      var ext = d3.extent(pts, function (p) { return num(p.x); });
      if (ext[0] === ext[1]) ext = [ext[0] - 1, ext[1] + 1];
      x = d3.scale.linear().domain(ext).nice().range([8, f.w - 8]);
    } else {
      var cats = [];
      pts.forEach(function (p) { if (cats.indexOf(p.x) < 0) cats.push(p.x); });
      x = d3.scale.ordinal().domain(cats).rangePoints([8, f.w - 8], 0.5);
    }
    var xv = function (p) { return numeric ? x(num(p.x)) : x(p.x); };
    var yext = d3.extent(pts, function (p) { return p.y; });
    if (yext[0] === yext[1]) yext = [yext[0] - Math.abs(yext[0] || 1) * 0.1, yext[1] + Math.abs(yext[1] || 1) * 0.1];
    var y = d3.scale.linear().domain(yext).nice().range([f.h - 4, 4]);
    var groups = d3.nest().key(function (p) { return p.x; }).entries(pts).map(function (g) {
      return {x: g.key, p: g.values[0], mean: d3.mean(g.values, function (p) { return p.y; })};
    });
    groups.sort(function (a, b) { return xv(a.p) - xv(b.p); });
    var line = d3.svg.line().x(function (g) { return xv(g.p); }).y(function (g) { return y(g.mean); });
    f.plot.append("path").attr("class", "mean").attr("d", line(groups))
      .style("fill", "none").style("stroke", "#4a78b5").style("stroke-width", 1.5);
    var dot = f.plot.selectAll("circle.pt").data(pts).enter().append("circle")
      .attr("class", function (p) { return OK[p.status] ? "pt" : "pt failed"; })
      .attr("r", 3.5).attr("cx", xv).attr("cy", function (p) { return y(p.y); })
      .style("fill", function (p) { return OK[p.status] ? "#4a78b5" : "#c0392b"; }).style("opacity", 0.8)
      .on("mousemove", function (p) {
        NPU.showTip("point " + p.point + " (" + p.status + ")\n" + o.param + " = " + p.x + "\n" + o.metric + " = " + NPU.fmtNum(p.y));
      })
      .on("mouseout", NPU.hideTip);
    f.xAxisG.call(d3.svg.axis().scale(x).orient("bottom").ticks(5));
    f.yAxisG.call(d3.svg.axis().scale(y).orient("left").ticks(5).tickFormat(NPU.fmtNum));
    NPU.register(o.id, NPU.finite(dot, ["cx", "cy"]), pts.length);
  }

  function render(data) {
    var points = data.points, params = data.params, metrics = data.metrics;
    el(app, "h1", "", "npusim sweep: " + data.dir);
    el(app, "div", "generator", "page written by " + data.generator);
    var byStatus = d3.nest().key(function (p) { return p.status; }).rollup(function (v) { return v.length; }).entries(points);
    var head = el(app, "section", "section");
    head.id = "sweep";
    el(head, "h2", "", "Sweep");
    el(head, "p", "", points.length + " points; " + byStatus.map(function (s) { return s.values + " " + s.key; }).join(", ") +
       "; swept: " + (params.join(", ") || "nothing (repeats only)"));
    // Metrics that vary get a row of charts; the others a table.
    var varying = [], constant = [];
    metrics.forEach(function (m) {
      var vals = points.map(function (p) { return p.metrics[m]; }).filter(function (v) { return typeof v === "number"; });
      if (!vals.length) return;
      (d3.min(vals) === d3.max(vals) ? constant : varying).push({name: m, value: vals[0], n: vals.length});
    });
    var sec = el(app, "section", "section");
    sec.id = "plots";
    el(sec, "h2", "", "Metrics against swept parameters");
    if (!params.length) el(sec, "p", "note", "no parameter was swept: nothing to plot against");
    else if (!varying.length) el(sec, "p", "note", "no metric changes across the sweep");
    el(sec, "p", "note", "a dot per point (red: a point that did not pass), the line through the mean at each value; hover for the point");
    varying.forEach(function (m) {
      el(sec, "h3", "", m.name);
      var row = el(sec, "div", "sweep-row");
      params.forEach(function (k) {
        // Every point with a value (null: its report lacks the metric); a value that is not a
        // number is not hidden: its dot has no position and the page's check says so.
        var pts = points.filter(function (p) { var v = p.metrics[m.name]; return v !== null && v !== undefined; }).map(function (p) {
          return {x: p.params[k], y: p.metrics[m.name], status: p.status, point: p.point};
        });
        scatter(row, {id: "sweep-" + safe(m.name) + "--" + safe(k), title: "against " + k, pts: pts, param: k, metric: m.name});
      });
    });
    if (constant.length) {
      el(sec, "h3", "", "The same at every point");
      var t = el(sec, "table", "values"), tb = el(t, "tbody");
      constant.forEach(function (m) {
        var tr = el(tb, "tr");
        el(tr, "td", "", m.name);
        el(tr, "td", "", NPU.fmtNum(m.value));
      });
    }
    var bad = points.filter(function (p) { return !OK[p.status]; });
    if (bad.length) {
      var s2 = el(app, "section", "section");
      s2.id = "failed";
      el(s2, "h2", "", "Points that did not pass");
      var t2 = el(s2, "table", "events"), h = el(el(t2, "thead"), "tr"), b2 = el(t2, "tbody");
      ["point", "status"].concat(params).forEach(function (c) { el(h, "th", "", c); });
      bad.forEach(function (p) {
        var tr = el(b2, "tr");
        el(tr, "td", "", String(p.point));
        el(tr, "td", "bad", p.status);
        params.forEach(function (k) { el(tr, "td", "", p.params[k]); });
      });
    }
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
  check.setAttribute("data-render-ms", String(Math.round(performance.now() - started)));
  check.setAttribute("data-load-ms", String(Math.round(performance.now())));
  check.textContent = NPU.errors.join("\n");
})();
