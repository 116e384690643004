// npusim HTML report: the charts, drawn with d3 (3.5, from Debian's libjs-d3). Each chart
// registers itself with NPU.check so the page can tell a browser test how many marks it drew.
"use strict";
var NPU = {charts: [], errors: []};

NPU.fmtBytes = function (v) {
  var u = ["B", "KiB", "MiB", "GiB"], i = 0;
  v = +v;
  while (Math.abs(v) >= 1024 && i < u.length - 1) { v /= 1024; i++; }
  return (i ? v.toFixed(2) : String(Math.round(v))) + " " + u[i];
};
NPU.fmtNum = function (v) {
  if (v === null || v === undefined) return "";
  if (typeof v !== "number") return String(v);
  if (Number.isInteger(v)) return String(v);
  return Math.abs(v) >= 100 ? v.toFixed(1) : v.toPrecision(4);
};
NPU.fmtUs = function (us) {
  return us >= 1000 ? (us / 1000).toFixed(3) + " ms" : us >= 1 ? us.toFixed(3) + " us" : (us * 1000).toFixed(1) + " ns";
};
NPU.hex = function (v) { return "0x" + Math.round(v).toString(16); };
NPU.el = function (parent, tag, cls, text) {
  var e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  parent.appendChild(e);
  return e;
};
// A mark is drawn when its geometry is a finite number: NaN from bad data does not count.
NPU.finite = function (sel, attrs) {
  var n = 0;
  sel.each(function () {
    for (var i = 0; i < attrs.length; i++) if (!isFinite(parseFloat(this.getAttribute(attrs[i])))) return;
    n++;
  });
  return n;
};
// Registers a chart: `drawn` marks for `expected` data items (the browser test compares them).
NPU.register = function (id, drawn, expected) {
  NPU.charts.push({id: id, drawn: drawn, expected: expected});
};

NPU.tip = null;
NPU.showTip = function (text) {
  if (!NPU.tip) NPU.tip = NPU.el(document.body, "div", "tip");
  NPU.tip.textContent = text;
  NPU.tip.style.display = "block";
  NPU.tip.style.left = (d3.event.pageX + 12) + "px";
  NPU.tip.style.top = (d3.event.pageY + 12) + "px";
};
NPU.hideTip = function () { if (NPU.tip) NPU.tip.style.display = "none"; };

NPU.color = d3.scale.category20();

// The frame every chart shares: an svg with margins, axes, a clip path and a plot group.
NPU.frame = function (parent, o) {
  var m = {top: 8, right: 16, bottom: 28, left: o.left || 70};
  var w = (o.width || 1040) - m.left - m.right, h = o.height - m.top - m.bottom;
  var box = NPU.el(parent, "div", "chart");
  box.id = o.id;
  if (o.title) NPU.el(box, "div", "chart-title", o.title);
  var svg = d3.select(box).append("svg").attr("width", w + m.left + m.right).attr("height", h + m.top + m.bottom);
  var clip = "clip-" + o.id;
  svg.append("defs").append("clipPath").attr("id", clip).append("rect").attr("width", w).attr("height", h);
  var g = svg.append("g").attr("transform", "translate(" + m.left + "," + m.top + ")");
  var f = {box: box, svg: svg, g: g, w: w, h: h};
  f.xAxisG = g.append("g").attr("class", "axis").attr("transform", "translate(0," + h + ")");
  f.yAxisG = g.append("g").attr("class", "axis");
  f.plot = g.append("g").attr("clip-path", "url(#" + clip + ")");
  f.plot.append("rect").attr("class", "bg").attr("width", w).attr("height", h);
  return f;
};

// Zoom on time (x), optionally on y too; linked charts share one time domain.
NPU.linked = {};
NPU.zoomable = function (f, x, y, redraw, link) {
  var z = d3.behavior.zoom().x(x).scaleExtent([1, 1e7]);
  if (y) z.y(y);
  z.on("zoom", function () {
    redraw();
    if (link && !NPU.linking) {
      NPU.linking = true;
      (NPU.linked[link] || []).forEach(function (o) { if (o.x !== x) o.set(x.domain()); });
      NPU.linking = false;
    }
  });
  f.svg.call(z).on("dblclick.zoom", null);
  f.svg.on("dblclick", function () { z.scale(1).translate([0, 0]); redraw(); });
  if (link) {
    (NPU.linked[link] = NPU.linked[link] || []).push({x: x, set: function (dom) {
      x.domain(dom); z.x(x); if (y) z.y(y); redraw();
    }});
  }
  NPU.el(f.box, "div", "hint", "drag to pan, wheel to zoom" + (y ? " (both axes)" : " (time)") + ", double-click to reset");
};

// Rows of bars over time (per core, per DMA channel): rows [{label, s: [t, dur, name, n, ...],
// m: [t, name, ...]}]; names resolves name indexes.
NPU.timeline = function (parent, o) {
  var rowH = 18, rows = o.rows;
  var f = NPU.frame(parent, {id: o.id, title: o.title, height: rows.length * rowH + 36, left: 190});
  var x = d3.scale.linear().domain([0, o.end || 1]).range([0, f.w]);
  var y = function (i) { return i * rowH; };
  var bars = [], marks = [];
  rows.forEach(function (r, i) {
    for (var k = 0; k + 3 < r.s.length; k += 4)
      bars.push({row: i, t: r.s[k], d: r.s[k + 1], name: r.s[k + 2] < 0 ? r.s[k + 3] + " events" : o.names[r.s[k + 2]], n: r.s[k + 3]});
    for (var j = 0; j + 1 < r.m.length; j += 2) marks.push({row: i, t: r.m[j], name: o.names[r.m[j + 1]]});
  });
  f.g.selectAll("text.row").data(rows).enter().append("text").attr("class", "row-label")
    .attr("x", -6).attr("y", function (d, i) { return y(i) + rowH * 0.7; }).attr("text-anchor", "end")
    .text(function (d) { return d.label; });
  f.plot.selectAll("line.sep").data(rows).enter().append("line").attr("class", "sep")
    .attr("x1", 0).attr("x2", f.w).attr("y1", function (d, i) { return y(i + 1); }).attr("y2", function (d, i) { return y(i + 1); });
  var rect = f.plot.selectAll("rect.bar").data(bars).enter().append("rect").attr("class", "bar")
    .attr("y", function (d) { return y(d.row) + 2; }).attr("height", rowH - 4)
    .style("fill", function (d) { return d.n > 1 && d.name.indexOf(" events") > 0 ? "#777" : NPU.color(d.name); })
    .on("mousemove", function (d) {
      NPU.showTip(d.name + (d.n > 1 ? " (" + d.n + " merged)" : "") + "\n" + NPU.fmtUs(d.t) + " + " + NPU.fmtUs(d.d));
    }).on("mouseout", NPU.hideTip);
  var mark = f.plot.selectAll("path.mark").data(marks).enter().append("path").attr("class", "mark")
    .attr("d", "M0,-5L4,0L0,5L-4,0Z")
    .on("mousemove", function (d) { NPU.showTip(d.name + " @ " + NPU.fmtUs(d.t)); }).on("mouseout", NPU.hideTip);
  var axis = d3.svg.axis().scale(x).orient("bottom").ticks(10).tickFormat(function (v) { return NPU.fmtUs(v); });
  function redraw() {
    rect.attr("x", function (d) { return x(d.t); })
      .attr("width", function (d) { return Math.max(1, x(d.t + d.d) - x(d.t)); });
    mark.attr("transform", function (d) { return "translate(" + x(d.t) + "," + (y(d.row) + rowH / 2) + ")"; });
    f.xAxisG.call(axis);
  }
  redraw();
  NPU.zoomable(f, x, null, redraw, o.link);
  NPU.register(o.id, NPU.finite(rect, ["x", "width"]) + NPU.finite(mark, []), bars.length + marks.length);
  return f;
};

// Step lines over time: series [{name, pts: [t, v, ...]}].
NPU.lines = function (parent, o) {
  var f = NPU.frame(parent, {id: o.id, title: o.title, height: o.height || 190, width: o.width});
  var all = [];
  o.series.forEach(function (s) { for (var k = 1; k < s.pts.length; k += 2) all.push(s.pts[k]); });
  var x = d3.scale.linear().domain([0, o.end || 1]).range([0, f.w]);
  var y = d3.scale.linear().domain([0, Math.max(1e-9, d3.max(all) || 1)]).nice().range([f.h, 0]);
  var line = d3.svg.line().interpolate("step-after").x(function (p) { return x(p[0]); }).y(function (p) { return y(p[1]); });
  var data = o.series.map(function (s, i) {
    var p = [];
    for (var k = 0; k + 1 < s.pts.length; k += 2) p.push([s.pts[k], s.pts[k + 1]]);
    return {name: s.name, p: p, color: s.color || NPU.color(i)};
  });
  var path = f.plot.selectAll("path.line").data(data).enter().append("path").attr("class", "line")
    .style("stroke", function (d) { return d.color; });
  var legend = NPU.el(f.box, "div", "legend");
  data.forEach(function (d) {
    var s = NPU.el(legend, "span", "key", d.name);
    s.style.borderColor = d.color;
  });
  var yAxis = d3.svg.axis().scale(y).orient("left").ticks(5).tickFormat(o.yFormat || NPU.fmtNum);
  f.yAxisG.call(yAxis);
  var axis = d3.svg.axis().scale(x).orient("bottom").ticks(8).tickFormat(NPU.fmtUs);
  function redraw() {
    path.attr("d", function (d) { return d.p.length ? line(d.p) : null; });
    f.xAxisG.call(axis);
  }
  redraw();
  NPU.zoomable(f, x, null, redraw, o.link);
  var drawn = 0;
  path.each(function () { var d = this.getAttribute("d"); if (d && d.indexOf("NaN") < 0) drawn++; });
  NPU.register(o.id, drawn, data.filter(function (d) { return d.p.length; }).length);
  return f;
};

// Address x time: each block a rectangle from its allocation to its free.
NPU.heapMap = function (parent, o) {
  var f = NPU.frame(parent, {id: o.id, title: o.title, height: 300, left: 90});
  var blocks = [];
  for (var k = 0; k + 4 < o.blocks.length; k += 5)
    blocks.push({a: o.blocks[k], size: o.blocks[k + 1], t0: o.blocks[k + 2], t1: o.blocks[k + 3], live: o.blocks[k + 4]});
  var lo = o.pool ? o.pool[0] : d3.min(blocks, function (b) { return b.a; }) || 0;
  var hi = o.pool ? o.pool[0] + o.pool[1] : d3.max(blocks, function (b) { return b.a + b.size; }) || 1;
  var x = d3.scale.linear().domain([0, o.end || 1]).range([0, f.w]);
  var y = d3.scale.linear().domain([lo, Math.max(hi, lo + 1)]).range([f.h, 0]);
  var shade = f.plot.selectAll("rect.overlap").data(o.overlaps.filter(function (r) { return r[1] > lo && r[0] < hi; }))
    .enter().append("rect").attr("class", "overlap")
    .on("mousemove", function (d) { NPU.showTip("layout overlap " + NPU.hex(d[0]) + "-" + NPU.hex(d[1]) + "\n" + d[2]); })
    .on("mouseout", NPU.hideTip);
  var rect = f.plot.selectAll("rect.block").data(blocks).enter().append("rect")
    .attr("class", function (b) { return b.live ? "block live" : "block"; })
    .style("fill", function (b) { return NPU.color(Math.log2(b.size) | 0); })
    .on("mousemove", function (b) {
      NPU.showTip(NPU.hex(b.a) + " + " + NPU.fmtBytes(b.size) + "\n" + NPU.fmtUs(b.t0) + " to " +
                  (b.live ? "end (never freed)" : NPU.fmtUs(b.t1)));
    }).on("mouseout", NPU.hideTip);
  var failed = f.plot.selectAll("path.failed").data(o.failed).enter().append("path").attr("class", "failed")
    .attr("d", "M-5,-8L5,-8L0,0Z")
    .on("mousemove", function (d) { NPU.showTip("failed allocation of " + NPU.fmtBytes(d[1]) + " @ " + NPU.fmtUs(d[0])); })
    .on("mouseout", NPU.hideTip);
  var bad = f.plot.selectAll("path.badfree").data(o.badFrees).enter().append("path").attr("class", "badfree")
    .attr("d", "M-4,-4L4,4M-4,4L4,-4")
    .on("mousemove", function (d) { NPU.showTip("bad free of " + NPU.hex(d[1]) + " @ " + NPU.fmtUs(d[0])); })
    .on("mouseout", NPU.hideTip);
  var xAxis = d3.svg.axis().scale(x).orient("bottom").ticks(8).tickFormat(NPU.fmtUs);
  var yAxis = d3.svg.axis().scale(y).orient("left").ticks(6).tickFormat(NPU.hex);
  function redraw() {
    rect.attr("x", function (b) { return x(b.t0); }).attr("y", function (b) { return y(b.a + b.size); })
      .attr("width", function (b) { return Math.max(1, x(b.t1) - x(b.t0)); })
      .attr("height", function (b) { return Math.max(1, y(b.a) - y(b.a + b.size)); });
    shade.attr("x", 0).attr("width", f.w).attr("y", function (d) { return y(Math.min(d[1], hi)); })
      .attr("height", function (d) { return Math.max(2, y(Math.max(d[0], lo)) - y(Math.min(d[1], hi))); });
    failed.attr("transform", function (d) { return "translate(" + x(d[0]) + "," + Math.max(10, y(hi)) + ")"; });
    bad.attr("transform", function (d) { return "translate(" + x(d[0]) + "," + y(d[1]) + ")"; });
    f.xAxisG.call(xAxis);
    f.yAxisG.call(yAxis);
  }
  redraw();
  NPU.zoomable(f, x, y, redraw, null);
  var legend = NPU.el(f.box, "div", "legend");
  NPU.el(legend, "span", "key", "block (colour: size class)");
  NPU.el(legend, "span", "key live-key", "never freed");
  NPU.el(legend, "span", "key fail-key", "\u25bc failed allocation");
  NPU.el(legend, "span", "key bad-key", "\u2715 bad free");
  NPU.el(legend, "span", "key overlap-key", "layout-lint overlap");
  NPU.register(o.id, NPU.finite(rect, ["x", "y", "width", "height"]) + NPU.finite(failed, []) + NPU.finite(bad, []) +
               NPU.finite(shade, ["y", "height"]), blocks.length + o.failed.length + o.badFrees.length + shade.size());
  return f;
};

// Vertical bars: items [{label, values: [v per series]}], series names.
// o.stacked: each item's values stacked in one bar (parts of a whole), else side by side.
NPU.bars = function (parent, o) {
  var f = NPU.frame(parent, {id: o.id, title: o.title, height: o.height || 200, width: o.width || 520});
  var series = o.series || ["value"];
  var x0 = d3.scale.ordinal().domain(o.items.map(function (d) { return d.label; })).rangeRoundBands([0, f.w], 0.15);
  var x1 = d3.scale.ordinal().domain(d3.range(o.stacked ? 1 : series.length)).rangeRoundBands([0, x0.rangeBand()], 0.05);
  var max = d3.max(o.items, function (d) { return o.stacked ? d3.sum(d.values) : d3.max(d.values); }) || 1;
  var y = d3.scale.linear().domain([0, o.max || max]).nice().range([f.h, 0]);
  var flat = [];
  o.items.forEach(function (d) {
    var below = 0;
    d.values.forEach(function (v, i) { flat.push({label: d.label, s: i, v: v, below: below}); if (o.stacked) below += v; });
  });
  var rect = f.plot.selectAll("rect.vbar").data(flat).enter().append("rect").attr("class", "vbar")
    .attr("x", function (d) { return x0(d.label) + x1(o.stacked ? 0 : d.s); }).attr("width", Math.max(1, x1.rangeBand()))
    .attr("y", function (d) { return y(d.below + d.v); })
    .attr("height", function (d) { return Math.max(0, y(d.below) - y(d.below + d.v)); })
    .style("fill", function (d) { return NPU.color(d.s); })
    .on("mousemove", function (d) { NPU.showTip(d.label + " " + series[d.s] + ": " + (o.fmt || NPU.fmtNum)(d.v)); })
    .on("mouseout", NPU.hideTip);
  f.xAxisG.call(d3.svg.axis().scale(x0).orient("bottom"));
  f.yAxisG.call(d3.svg.axis().scale(y).orient("left").ticks(5).tickFormat(o.fmt || NPU.fmtNum));
  if (series.length > 1) {
    var legend = NPU.el(f.box, "div", "legend");
    series.forEach(function (s, i) { NPU.el(legend, "span", "key", s).style.borderColor = NPU.color(i); });
  }
  NPU.register(o.id, NPU.finite(rect, ["x", "y", "width", "height"]), flat.length);
  return f;
};

// A latency histogram from the 0, 5, ..., 100 % quantiles: each bar holds the requests between
// two quantiles (bars whose bounds coincide merge), so its height is its share of requests.
NPU.latencyHistogram = function (parent, o) {
  var q = o.quantiles, items = [];
  for (var i = 0; i + 1 < q.length; i++) {
    var last = items[items.length - 1];
    var lo = q[i], hi = q[i + 1];
    if (last && last.lo === lo && last.hi === hi) { last.share += 5; continue; }
    if (lo === hi && last && last.hi === lo && last.lo === lo) { last.share += 5; continue; }
    items.push({lo: lo, hi: hi, share: 5});
  }
  return NPU.bars(parent, {id: o.id, title: o.title, width: o.width || 520, series: ["% of requests"],
    fmt: function (v) { return NPU.fmtNum(v) + " %"; },
    items: items.map(function (b) {
      return {label: b.lo === b.hi ? NPU.fmtNum(b.lo) : NPU.fmtNum(b.lo) + "-" + NPU.fmtNum(b.hi), values: [b.share]};
    })});
};
