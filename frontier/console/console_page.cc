// The page reads GET /api/status once a second and sends POST
// /api/control; what it shows and the API are in docs/OPERATING.md,
// "The web console".
#include "frontier/console/console_page.h"

namespace zcrawl::frontier {

const std::string_view kConsolePage = R"page(<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>zcrawl console</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1b1f24}
header{display:flex;gap:1em;align-items:center;padding:.6em 1em;background:#1b1f24;color:#fff}
header h1{font-size:1.1em;margin:0}#state{font-weight:bold;padding:.1em .6em;border-radius:4px;background:#2d7d46}
#state.paused{background:#b7791f}#state.finished{background:#4a5568}#state.draining{background:#6b46c1}#state.down{background:#c53030}
main{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:1em;padding:1em}
section{background:#fff;border:1px solid #d8dde3;border-radius:6px;padding:.8em}
section h2{font-size:1em;margin:0 0 .5em}
.tiles{display:flex;flex-wrap:wrap;gap:.6em}.tile{min-width:7em}.tile b{display:block;font-size:1.4em}
table{border-collapse:collapse;width:100%;font-size:13px}th,td{text-align:right;padding:.2em .4em;border-bottom:1px solid #eef}
th:first-child,td:first-child{text-align:left}th{cursor:pointer;user-select:none;background:#f0f2f5}
canvas{width:100%;height:180px}form{display:flex;flex-wrap:wrap;gap:.4em;margin:.3em 0}
input,button,textarea{font:inherit}button{cursor:pointer}#result{margin-top:.4em;white-space:pre-wrap;font-family:monospace}
.legend span{margin-right:1em}.k1{color:#2b6cb0}.k2{color:#2f855a}.k3{color:#c53030}.k4{color:#805ad5}
.wide{grid-column:1/-1}.muted{color:#718096}.bad{color:#c53030;font-weight:bold}
</style></head><body>
<header><h1>zcrawl</h1><span id="state">…</span><span id="summary" class="muted"></span></header>
<main>
<section><h2>URLs</h2><div class="tiles" id="tiles"></div></section>
<section><h2>Last hour</h2><canvas id="chart" width="800" height="180"></canvas>
<div class="legend"><span class="k1">■ pages/s</span><span class="k2">■ new URLs/s</span><span class="k3">■ failures/s</span><span class="k4">■ MB/s</span></div></section>
<section><h2>Controls</h2>
<form><button type="button" id="pause">Pause</button><button type="button" id="resume">Resume</button>
<button type="button" id="drain">Drain</button><button type="button" id="stop">Stop</button></form>
<form id="block-form"><input id="block-target" placeholder="https://host, example.com or re:PATTERN" size="32">
<input id="block-note" placeholder="note"><button>Block</button><button type="button" id="unblock">Unblock</button></form>
<form id="pace-form"><input id="pace-target" placeholder="origin or domain" size="20"><input id="pace-delay" placeholder="delay ms" size="8">
<input id="pace-per-host" placeholder="per host" size="6"><button>Set pace</button><button type="button" id="pace-clear">Clear</button></form>
<form id="seeds-form"><textarea id="seeds" rows="2" cols="40" placeholder="URLs to add, one a line"></textarea>
<label><input type="checkbox" id="widen"> widen scope</label><button>Add seeds</button></form>
<form id="threads-form"><input id="threads" placeholder="threads per fetcher" size="10"><button>Set threads</button></form>
<div id="result" class="muted"></div></section>
<section><h2>Blocks and overrides</h2><div id="rules" class="muted">none</div></section>
<section><h2>Fetchers</h2><table id="fetchers"></table></section>
<section><h2>Writer</h2><div id="writer" class="muted">no writer heard yet</div></section>
<section><h2>Failure causes</h2><table id="causes"></table></section>
<section class="wide"><h2>Hosts <input id="filter" placeholder="filter" size="20"></h2><table id="hosts"></table></section>
</main>
<script>
"use strict";
const token = new URLSearchParams(location.hash.slice(1)).get("token") || "";
const headers = token ? {"Authorization": "Bearer " + token} : {};
let last = null, hostSort = {key: "waiting", down: true};
const fetcherSeen = {};  // id -> [{t, n: completed}] of the last 10 s: its pages/s
function fetcherRate(id, n, now) {
  const seen = (fetcherSeen[id] = (fetcherSeen[id] || []).filter(p => now - p.t <= 10000));
  seen.push({t: now, n});
  return now > seen[0].t ? (n - seen[0].n) * 1000 / (now - seen[0].t) : 0;
}
const $ = id => document.getElementById(id);
const esc = s => String(s).replace(/[&<>"']/g, c => ({"&":"&amp;","<":"&lt;",">":"&gt;","\"":"&quot;","'":"&#39;"}[c]));
const num = n => Number(n || 0).toLocaleString("en");

async function control(body) {
  $("result").textContent = "…";
  try {
    const r = await fetch("api/control", {method: "POST", headers: {...headers, "Content-Type": "application/json"},
                                          body: JSON.stringify(body)});
    const j = await r.json();
    $("result").textContent = body.verb + ": " + j.result;
  } catch (e) { $("result").textContent = body.verb + ": " + e; }
  refresh();
}
$("pause").onclick = () => control({verb: "pause"});
$("resume").onclick = () => control({verb: "resume"});
$("drain").onclick = () => confirm("Drain: admit no new URLs and end with what is known?") && control({verb: "drain"});
$("stop").onclick = () => confirm("Stop the crawl? (the next run resumes it)") && control({verb: "stop"});
$("block-form").onsubmit = e => { e.preventDefault(); control({verb: "block", target: $("block-target").value, note: $("block-note").value}); };
$("unblock").onclick = () => control({verb: "unblock", target: $("block-target").value});
$("pace-form").onsubmit = e => {
  e.preventDefault();
  const b = {verb: "politeness", target: $("pace-target").value};
  if ($("pace-delay").value) b.delay_ms = Number($("pace-delay").value);
  if ($("pace-per-host").value) b.per_host = Number($("pace-per-host").value);
  control(b);
};
$("pace-clear").onclick = () => control({verb: "politeness", target: $("pace-target").value, clear: true});
$("seeds-form").onsubmit = e => { e.preventDefault();
  control({verb: "add-seeds", urls: $("seeds").value.split("\n").map(s => s.trim()).filter(Boolean), widen: $("widen").checked}); };
$("threads-form").onsubmit = e => { e.preventDefault(); control({verb: "threads", threads: Number($("threads").value)}); };
$("filter").oninput = () => last && drawHosts(last);

function table(el, head, rows) {
  el.innerHTML = "<tr>" + head.map(h => "<th>" + esc(h) + "</th>").join("") + "</tr>" +
    rows.map(r => "<tr>" + r.map(c => "<td>" + esc(c) + "</td>").join("") + "</tr>").join("");
}
function drawHosts(snap) {
  const f = $("filter").value.toLowerCase();
  const rows = snap.hosts.filter(h => !f || h.host.toLowerCase().includes(f) || (h.last_failure || "").toLowerCase().includes(f));
  const k = hostSort.key;
  rows.sort((a, b) => (typeof a[k] === "string" ? String(a[k]).localeCompare(b[k]) : (a[k] || 0) - (b[k] || 0)) * (hostSort.down ? -1 : 1));
  const cols = ["host", "waiting", "in_flight", "done", "failed", "gap_ms", "concurrency", "pushbacks", "backing_off_s",
                "override", "blocked", "last_failure"];
  const shown = (h, c) => typeof h[c] === "boolean" ? (h[c] ? "yes" : "") : c === "backing_off_s" && !h[c] ? "" : (h[c] ?? "");
  table($("hosts"), cols, rows.slice(0, 500).map(h => cols.map(c => shown(h, c))));
  $("hosts").querySelectorAll("th").forEach((th, i) => th.onclick = () => {
    hostSort = {key: cols[i], down: hostSort.key === cols[i] ? !hostSort.down : true}; drawHosts(last); });
}
function drawChart(history) {
  const c = $("chart"), g = c.getContext("2d"), w = c.width, h = c.height;
  g.clearRect(0, 0, w, h);
  if (history.length < 2) return;
  const rates = [];
  for (let i = 1; i < history.length; i++) {
    const a = history[i - 1], b = history[i], dt = Math.max((b.t - a.t) / 1000, 0.001);
    rates.push([(b.done - a.done) / dt, (b.admitted - a.admitted) / dt, (b.failed - a.failed) / dt, (b.bytes - a.bytes) / dt / 1e6]);
  }
  const max = Math.max(1, ...rates.map(r => Math.max(r[0], r[1], r[2])));
  const maxMb = Math.max(0.001, ...rates.map(r => r[3]));
  ["#2b6cb0", "#2f855a", "#c53030", "#805ad5"].forEach((color, k) => {
    g.strokeStyle = color; g.lineWidth = 2; g.beginPath();
    rates.forEach((r, i) => { const x = i * (w - 1) / Math.max(rates.length - 1, 1), y = h - 4 - r[k] / (k === 3 ? maxMb : max) * (h - 20);
      i ? g.lineTo(x, y) : g.moveTo(x, y); });
    g.stroke();
  });
  g.fillStyle = "#4a5568"; g.fillText("max " + max.toFixed(1) + "/s, " + maxMb.toFixed(2) + " MB/s", 4, 12);
}
function render(snap) {
  const s = snap.status;
  const state = !s ? "down" : s.finished ? "finished" : s.paused ? "paused" : s.draining ? "draining" : "running";
  $("state").textContent = state.toUpperCase(); $("state").className = state;
  $("summary").textContent = s ? Number(s.pages_per_second).toFixed(1) + " pages/s, up " +
    Math.round((s.uptime_ms || 0) / 1000) + " s" + (s.waiting_for_space ? ", WAITING FOR SPACE: " + s.waiting_for_space : "") : "";
  const c = s.counts;
  const tiles = [["waiting", c.waiting], ["leased", c.leased], ["done", c.done], ["failed", c.failed], ["seen", c.seen],
                 ["hosts", s.hosts], ["backing off", s.origins_backing_off], ["pushbacks", s.pushbacks]];
  $("tiles").innerHTML = tiles.map(t => "<div class=tile id=tile-" + t[0].replace(" ", "-") + "><b>" + num(t[1]) + "</b>" + t[0] + "</div>").join("");
  drawChart(snap.history || []);
  const now = Date.now();
  table($("fetchers"), ["id", "machine", "threads", "in flight", "pages/s", "last heard ms"],
        (s.fetchers || []).map(f => [f.id, f.hostname ? f.hostname + ":" + f.pid : "?", f.target_workers, f.in_flight,
                                     fetcherRate(f.id, f.completed, now).toFixed(1), f.last_seen_ms_ago]));
  const w = s.writer;
  $("writer").innerHTML = !w ? "no writer heard yet" : "<div class=tiles>" + [["stored", num(w.pages_stored)],
      ["MB stored", num(Math.round(w.bytes_stored / 1e6))], ["duplicates", num(w.duplicates)],
      ["GB free", (w.free_disk_bytes / 1e9).toFixed(1)], ["heard ms ago", num(w.last_seen_ms_ago)]]
    .map(t => "<div class=tile><b>" + esc(t[1]) + "</b>" + t[0] + "</div>").join("") + "</div>" +
    (w.waiting_for_space ? "<p class=bad>WAITING FOR SPACE: " + esc(w.waiting_for_space) + "</p>" : "");
  table($("causes"), ["cause", "URLs"], Object.entries(snap.failure_reasons || {}).sort((a, b) => b[1] - a[1]));
  const rules = (s.block_rules || []).map(b => "block " + (b.target.origin || b.target.domain || "re:" + b.target.url_regex) +
      " (" + num(b.blocked_urls) + " URLs)" + (b.note ? " — " + b.note : ""))
    .concat((s.override_rules || []).map(o => "pace " + (o.target.origin || o.target.domain) +
      (o.delay_ms !== undefined ? " delay " + o.delay_ms + " ms" : "") + (o.per_host !== undefined ? " " + o.per_host + " at once" : "")));
  $("rules").textContent = rules.length ? rules.join("\n") : "none";
  drawHosts(snap);
}
async function refresh() {
  try {
    const r = await fetch("api/status", {headers});
    if (r.status === 401) { $("state").textContent = "TOKEN NEEDED (#token=…)"; $("state").className = "down"; return; }
    last = await r.json(); render(last);
  } catch (e) { $("state").textContent = "NO FRONTIER"; $("state").className = "down"; }
}
refresh(); setInterval(refresh, 1000);
</script></body></html>
)page";

}  // namespace zcrawl::frontier
