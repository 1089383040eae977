"""The HTML report's inline stylesheet and script.

Kept as Python strings, not package-data files, so an installed simlab always
has them. The script is vanilla JavaScript with no libraries; it builds every
transcript node with ``textContent`` (never ``innerHTML``), so untrusted text
can only ever be text.
"""

from __future__ import annotations

STYLE = """
:root { --fg:#1d2733; --muted:#5b6776; --line:#dde3ea; --bg:#f6f8fa; --pass:#1f7a4d;
  --fail:#b23a48; --err:#8a6d00; --accent:#2a6f97; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
  color:var(--fg); background:#fff; }
header { padding:18px 28px 10px; border-bottom:1px solid var(--line); background:var(--bg); }
header h1 { margin:0 0 4px; font-size:22px; }
header p { margin:0; color:var(--muted); }
nav { margin-top:8px; display:flex; gap:16px; }
nav a { color:var(--accent); text-decoration:none; font-weight:600; }
main { padding:8px 28px 48px; max-width:1400px; }
h2 { margin:28px 0 10px; font-size:18px; border-bottom:1px solid var(--line); padding-bottom:4px; }
h3 { margin:18px 0 6px; font-size:15px; }
.cards { display:grid; grid-template-columns:repeat(auto-fill,minmax(230px,1fr)); gap:10px; }
.card { border:1px solid var(--line); border-radius:6px; padding:10px 12px; background:#fff; }
.card .k { color:var(--muted); font-size:12px; text-transform:uppercase; letter-spacing:.04em; }
.card .v { font-size:22px; font-weight:650; }
.card .d { color:var(--muted); font-size:12px; }
.card.overall { background:var(--bg); }
.charts { display:grid; grid-template-columns:repeat(auto-fill,minmax(460px,1fr)); gap:16px; }
figure { margin:0; border:1px solid var(--line); border-radius:6px; padding:8px; }
figcaption { color:var(--muted); font-size:12px; margin-top:4px; }
svg.chart { max-width:100%; height:auto; display:block; margin:0 auto; }
table.t { border-collapse:collapse; margin:6px 0; font-size:13px; }
table.t th, table.t td { border-bottom:1px solid var(--line); padding:4px 10px; text-align:left;
  vertical-align:top; }
table.t th { background:var(--bg); font-weight:600; }
table.t td.n, table.t th.n { text-align:right; font-variant-numeric:tabular-nums; }
.note { color:var(--muted); font-size:12px; font-style:italic; margin:2px 0 10px; }
.line { margin:8px 0; }
.line.overall { font-weight:600; }
.filters { display:flex; flex-wrap:wrap; gap:12px; align-items:end; margin:8px 0 10px; }
.filters label { display:flex; flex-direction:column; font-size:12px; color:var(--muted); }
.filters select { font:inherit; padding:3px 6px; min-width:140px; }
#shown { color:var(--muted); font-size:13px; }
.sessions { border-top:1px solid var(--line); }
.srow { display:grid; grid-template-columns:minmax(260px,2.4fr) 1.2fr 1.3fr .7fr .6fr .7fr .5fr 1fr;
  gap:8px; padding:5px 8px; align-items:center; font-size:13px; }
.srow.head { font-weight:600; background:var(--bg); border-bottom:1px solid var(--line); }
details.session { border-bottom:1px solid var(--line); }
details.session > summary { list-style:none; cursor:pointer; }
details.session > summary::-webkit-details-marker { display:none; }
details.session > summary:hover { background:#f0f5f9; }
details.session[open] > summary { background:#e8f0f6; }
.key { font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace; font-size:12px;
  overflow-wrap:anywhere; }
.st { font-weight:650; }
.st.passed { color:var(--pass); } .st.failed { color:var(--fail); } .st.error { color:var(--err); }
.body { padding:8px 14px 14px; background:#fbfcfd; }
.fails { margin:0 0 8px; padding-left:18px; color:var(--fail); font-size:13px; }
.errmsg { color:var(--err); white-space:pre-wrap; font-size:13px; }
.turn { border-left:3px solid var(--line); margin:8px 0; padding:4px 10px; }
.turn.first-fail { border-left-color:var(--fail); background:#fdf0f1; }
.turn .idx { font-size:12px; color:var(--muted); font-weight:600; }
.turn .flag { color:var(--fail); margin-left:6px; }
.msg { white-space:pre-wrap; overflow-wrap:anywhere; margin:3px 0; }
.msg .who { font-weight:650; margin-right:6px; }
.meta { font-size:12px; color:var(--muted); }
.tool { margin:4px 0 4px 16px; font-size:12px; }
.tool pre { margin:2px 0; padding:4px 6px; background:#f1f3f5; border-radius:4px;
  white-space:pre-wrap; overflow-wrap:anywhere; max-height:260px; overflow:auto; }
.tool .call { font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;
  overflow-wrap:anywhere; }
.tool .terr { color:var(--fail); }
.tool details.result > summary { cursor:pointer; color:var(--muted);
  font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace; overflow-wrap:anywhere; }
"""

SCRIPT = """
(function () {
  "use strict";
  var blob = document.getElementById("simlab-sessions");
  var data = blob ? JSON.parse(blob.textContent) : [];

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  function pretty(v) {
    try { return JSON.stringify(v, null, 2); } catch (err) { return String(v); }
  }
  function compact(v) {
    try { return JSON.stringify(v); } catch (err) { return String(v); }
  }
  function renderTool(call) {
    // name(args) on one line; the result folded, with a one-line preview
    var box = el("div", "tool");
    box.appendChild(el("div", "call", "tool call: " + call.n + " " + compact(call.a)));
    if (call.e !== null && call.e !== undefined) {
      box.appendChild(el("div", "terr", "error: " + call.e));
      return box;
    }
    var text = compact(call.r);
    var fold = el("details", "result");
    fold.appendChild(el("summary", null,
      "result: " + (text.length > 110 ? text.slice(0, 110) + " …" : text)));
    fold.appendChild(el("pre", null, pretty(call.r)));
    box.appendChild(fold);
    return box;
  }
  function renderTurn(t, firstFail) {
    var box = el("div", t.i === firstFail ? "turn first-fail" : "turn");
    var head = el("div", "idx", "turn " + t.i);
    if (t.i === firstFail) { head.appendChild(el("span", "flag", "first failing turn")); }
    box.appendChild(head);
    var user = el("div", "msg");
    user.appendChild(el("span", "who", t.s ? "user (" + t.s + ")" : "user"));
    user.appendChild(document.createTextNode(t.u));
    box.appendChild(user);
    if (t.d) { box.appendChild(el("div", "meta", "disclosed: " + JSON.stringify(t.d))); }
    if (t.p) { box.appendChild(el("div", "meta", "perturbations: " + t.p.join(", "))); }
    if (t.a !== null && t.a !== undefined) {
      var agent = el("div", "msg");
      agent.appendChild(el("span", "who", "agent"));
      agent.appendChild(document.createTextNode(t.a));
      box.appendChild(agent);
      (t.c || []).forEach(function (call) { box.appendChild(renderTool(call)); });
    }
    return box;
  }
  function render(details) {
    var s = data[Number(details.getAttribute("data-i"))];
    var body = details.querySelector(".body");
    if (!s || !body || body.getAttribute("data-done")) { return; }
    body.setAttribute("data-done", "1");
    if (s.err) { body.appendChild(el("div", "errmsg", "error: " + s.err)); }
    if (s.f.length) {
      var list = el("ul", "fails");
      s.f.forEach(function (c) {
        var where = c[2] === null ? "" : " (turn " + c[2] + ")";
        list.appendChild(el("li", null, c[0] + where + ": " + c[1]));
      });
      body.appendChild(list);
    }
    if (!s.t.length) { body.appendChild(el("div", "meta", "no turns recorded")); }
    s.t.forEach(function (t) { body.appendChild(renderTurn(t, s.ff)); });
  }
  // toggle does not bubble: listen in the capture phase, once for every session
  document.addEventListener("toggle", function (ev) {
    var d = ev.target;
    if (d instanceof HTMLDetailsElement && d.open && d.classList.contains("session")) {
      render(d);
    }
  }, true);

  var fields = ["persona", "goal", "bucket", "status"];
  var rows = Array.prototype.slice.call(document.querySelectorAll("details.session"));
  var shown = document.getElementById("shown");
  function applyFilters() {
    var want = {};
    fields.forEach(function (f) {
      var sel = document.getElementById("f-" + f);
      want[f] = sel ? sel.value : "";
    });
    var n = 0;
    rows.forEach(function (r) {
      var ok = fields.every(function (f) {
        return want[f] === "" || r.getAttribute("data-" + f) === want[f];
      });
      r.hidden = !ok;
      if (ok) { n += 1; }
    });
    if (shown) { shown.textContent = "showing " + n + " of " + rows.length + " sessions"; }
  }
  fields.forEach(function (f) {
    var sel = document.getElementById("f-" + f);
    if (sel) { sel.addEventListener("change", applyFilters); }
  });
  applyFilters();

  function openFromHash() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    var d = id ? document.getElementById(id) : null;
    if (d && d instanceof HTMLDetailsElement) {
      d.hidden = false;
      d.open = true;
      render(d);
      d.scrollIntoView();
    }
  }
  window.addEventListener("hashchange", openFromHash);
  openFromHash();
})();
"""
