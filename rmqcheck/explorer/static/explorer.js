// rmqcheck explore: the page. Everything shown comes from the server's answers for a path (the action labels
// taken from the initial state), which the address carries as ?path=A();B(x=1), so every state has a URL.
// Nothing here knows a field or an action of a particular model: fields are grouped by the actor the server
// names, actions are labels.
"use strict";

const $ = (id) => document.getElementById(id);

const ui = {
  model: null,      // /api/model: configuration, actors, properties, loaded traces
  data: null,       // /api/path: the current path's steps, state, actions, properties, diagram
  labels: [],       // the current path
  future: [],       // a longer path the current one is a prefix of (where "forward" goes)
  trace: null,      // the loaded trace being stepped through: {name, path, loop_start, status}
  traces: [],       // every trace loaded
  watch: [],        // fields shown as columns of the path
  polling: null,    // the running search's timer
  asked: 0,         // the number of the latest path asked for: an answer to an older request is dropped
};

// -- addresses ----------------------------------------------------------------------------------------------
function joinPath(labels) { return labels.map((l) => l.replace(/\s+/g, "")).join(ui.model ? ui.model.separator : ";"); }

function encode(text) {   // readable in the address bar: keep ; , = unescaped (none of them ends a query value)
  return encodeURIComponent(text).replace(/%3B/g, ";").replace(/%2C/g, ",").replace(/%3D/g, "=");
}

function urlFor(labels, watch = ui.watch) {
  const parts = [];
  if (labels.length) parts.push("path=" + encode(joinPath(labels)));
  if (watch.length) parts.push("watch=" + encode(watch.join(",")));
  return "/" + (parts.length ? "?" + parts.join("&") : "");
}

function fromAddress() {
  const q = new URLSearchParams(location.search);
  const split = (v, sep) => (v || "").split(sep).map((s) => s.trim()).filter(Boolean);
  return { labels: split(q.get("path"), ";"), watch: split(q.get("watch"), ",") };
}

// -- the server ---------------------------------------------------------------------------------------------
async function api(url, body) {
  const init = body === undefined ? {} :
    { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
  const response = await fetch(url, init);
  let answer;
  try { answer = await response.json(); } catch (e) { answer = { error: `HTTP ${response.status}` }; }
  if (!response.ok) throw new Error(answer.error || `HTTP ${response.status}`);
  return answer;
}

function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
}

// -- moving along paths -------------------------------------------------------------------------------------
function isPrefix(short, long) {
  return short.length <= long.length && short.every((l, i) => l.replace(/\s+/g, "") === long[i].replace(/\s+/g, ""));
}

function show(data, how) {
  ui.data = data;
  ui.labels = data.path;
  if (!isPrefix(ui.labels, ui.future)) ui.future = ui.labels.slice();
  if (ui.trace && !isPrefix(ui.labels, ui.trace.path)) ui.trace = null;
  const url = urlFor(ui.labels);
  if (how === "push" && url !== location.pathname + location.search) history.pushState(null, "", url);
  else if (how === "replace") history.replaceState(null, "", url);
  render();
}

// Ask for a path and show it, unless a newer request was made meanwhile (a click while a file loads, two
// quick clicks): the page always ends on the last thing asked for.
async function ask(url, body, how) {
  const mine = ++ui.asked;
  try {
    const data = await api(url, body);
    if (mine !== ui.asked) return true;
    showError("");
    show(data, how);
    return true;
  } catch (e) {
    if (mine === ui.asked) showError(e.message);
    return false;
  }
}

function go(labels, how = "push") { return ask("/api/path?path=" + encode(joinPath(labels)), undefined, how); }

function step(label) { return ask("/api/step", { path: joinPath(ui.labels), action: label }, "push"); }

function back() { if (ui.labels.length) go(ui.labels.slice(0, -1)); }

function forward() {
  const next = ui.future[ui.labels.length];
  if (next !== undefined) step(next);
}

// -- rendering ----------------------------------------------------------------------------------------------
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

function fmt(value) {
  if (value === null || value === undefined) return "-";
  if (Array.isArray(value)) return "[" + value.map(fmt).join(",") + "]";   // nested: [[1,0]], not [1,0]
  return String(value);
}

function shortName(field) { return field.includes(".") ? field.slice(field.indexOf(".") + 1) : field; }

function render() {
  const d = ui.data;
  const n = ui.labels.length;
  $("back").disabled = n === 0;
  $("restart").disabled = n === 0;
  $("forward").disabled = ui.future[n] === undefined;
  $("forward").title = ui.future[n] ? "next: " + ui.future[n] : "no step ahead";
  $("where").textContent = `step ${n}` + (ui.future.length > n ? ` of ${ui.future.length}` : "")
    + (ui.trace ? ` \u00b7 ${ui.trace.name}` : "");
  $("permalink").href = urlFor(ui.labels);
  $("state-step").textContent = n ? `after step ${n}: ${d.steps[n].action}` : "initial";
  renderActions(d);
  renderState(d);
  renderProperties(d);
  renderPath(d);
  $("diagram").innerHTML = d.sequence;   // SVG drawn and escaped by the server (reports/sequence.py)
}

function renderActions(d) {
  const next = ui.future[ui.labels.length];
  const list = $("actions");
  list.replaceChildren();
  if (!d.enabled.length) list.append(el("li", { class: "hint" }, "No action is enabled: a terminal state."));
  for (const a of d.enabled) {
    const isNext = next !== undefined && next.replace(/\s+/g, "") === a.label.replace(/\s+/g, "");
    const touches = a.error ? "model error" : (a.changes.length ? a.changes.join(", ") : "");
    list.append(el("li", {},
      el("button", { type: "button", class: (isNext ? "next " : "") + (a.error ? "model-error" : ""),
                     "data-label": a.label, title: a.doc || a.label, onclick: () => step(a.label) },
        el("span", { class: "actor" }, a.actor),
        el("span", { class: "label" }, a.label),
        a.outcome ? el("span", { class: "outcome" }, a.outcome) : null,
        touches ? el("span", { class: "touches" }, touches) : null)));
  }
}

function renderState(d) {
  const changes = d.steps[d.steps.length - 1].changes || {};
  const box = $("state");
  box.replaceChildren();
  for (const group of d.state) {
    const rows = group.fields.map((f) => el("tr", { class: f.changed ? "changed" : "", "data-field": f.name },
      el("td", {}, el("input", { type: "checkbox", class: "watch", "aria-label": "watch " + f.name,
                                 checked: ui.watch.includes(f.name), onchange: (e) => toggleWatch(f.name, e.target.checked) })),
      el("td", { class: "name" }, shortName(f.name)),
      el("td", { class: "value" }, fmt(f.value),
         f.changed ? el("span", { class: "was" }, "was " + fmt(changes[f.name] ? changes[f.name][0] : null)) : null)));
    box.append(el("div", { class: "actor-box", "data-actor": group.actor },
      el("h3", {}, group.actor), el("table", {}, el("tbody", {}, ...rows))));
  }
}

function renderProperties(d) {
  const box = $("properties");
  box.replaceChildren();
  for (const p of d.properties) {
    const why = p.why ? el("ul", {}, ...p.why.conditions.map((c) =>
      el("li", { class: c.holds ? "ok" : "fails" }, (c.holds ? "\u2713 " : "\u2717 ") + c.text))) : null;
    box.append(el("div", { class: "prop " + p.value, "data-property": p.name, title: p.summary },
      el("span", { class: "name" }, p.name), el("span", { class: "kind" }, p.kind),
      el("span", { class: "value" }, p.text), why));
  }
}

function renderPath(d) {
  const n = ui.labels.length;
  const loop = ui.trace && ui.trace.loop_start !== null && ui.trace.loop_start !== undefined ? ui.trace.loop_start : null;
  const info = $("trace-info");
  info.replaceChildren();
  if (ui.trace) {
    info.append(`Trace: ${ui.trace.name}` + (ui.trace.status ? ` (${ui.trace.status})` : "")
      + `, ${ui.trace.path.length} steps.`);
    if (loop !== null) {
      info.append(" ", el("span", { class: "loop-note" },
        `\u21BA Its cycle: steps ${loop + 1} to ${ui.trace.path.length} return to the state of step ${loop}, forever.`));
    }
  }
  const head = el("tr", {}, el("th", {}, "#"), el("th", {}, "action"), el("th", {}, "outcome"),
    el("th", {}, "changes"), ...ui.watch.map((w) => el("th", { title: w }, w)));
  const rows = [];
  const total = Math.max(ui.future.length, n);
  for (let i = 0; i <= total; i++) {
    const s = i <= n ? d.steps[i] : null;
    const label = i === 0 ? "INIT" : (s ? s.action : ui.future[i - 1]);
    const cls = [i === n ? "current" : "", i > n ? "ahead" : "",
                 loop !== null && i >= loop ? "loop" : "", loop !== null && i === loop ? "loop-start" : ""].join(" ");
    const prefix = ui.future.slice(0, i);
    const link = el("a", { href: urlFor(prefix), onclick: (e) => { e.preventDefault(); go(prefix); } }, label);
    const changes = s && i > 0 ? Object.entries(s.changes).map(([k, [a, b]]) => `${k}: ${fmt(a)} \u2192 ${fmt(b)}`).join("; ") : "";
    const cells = ui.watch.map((w) => {
      const moved = s && i > 0 && Object.prototype.hasOwnProperty.call(s.changes, w);
      return el("td", { class: "w" + (moved ? " moved" : "") }, s ? fmt(s.state[w]) : "");
    });
    rows.push(el("tr", { class: cls.trim(), "data-step": i },
      el("td", { class: "step" }, String(i)), el("td", { class: "step" }, link),
      el("td", {}, s ? s.outcome : ""), el("td", { class: "changes" }, changes), ...cells));
  }
  $("path").replaceChildren(el("thead", {}, head), el("tbody", {}, ...rows));
}

function toggleWatch(field, on) {
  ui.watch = on ? [...new Set([...ui.watch, field])] : ui.watch.filter((w) => w !== field);
  history.replaceState(null, "", urlFor(ui.labels));
  render();
}

// -- traces -------------------------------------------------------------------------------------------------
function chooseTraces(traces) {
  ui.traces = traces;
  const choice = $("trace-choice");
  choice.replaceChildren(...traces.map((t, i) =>
    el("option", { value: String(i) }, `${t.name}${t.status ? " (" + t.status + ")" : ""}: ${t.path.length} steps`
      + (t.loop_start !== null && t.loop_start !== undefined ? ", with a cycle" : ""))));
  choice.hidden = traces.length === 0;
}

function useTrace(t) {
  ui.trace = t;
  ui.future = t.path.slice();
  return go([]);
}

async function loadFile(file) {
  const status = $("trace-status");
  status.textContent = `${file.name}: loading\u2026`;
  try {
    const text = await file.text();
    const answer = await api("/api/trace", { name: file.name, text });
    chooseTraces(answer.traces);
    showError("");
    await useTrace(answer.traces[0]);
    status.textContent = `${file.name}: ${answer.traces.length} trace${answer.traces.length === 1 ? "" : "s"}, `
      + "each replayed against the model";
  } catch (e) {
    status.textContent = `${file.name}: not loaded`;
    showError(e.message);
  }
}

// -- shortest path to a property ----------------------------------------------------------------------------
async function search() {
  const name = $("search-property").value;
  const status = $("search-status");
  try {
    let s = await api("/api/search", { property: name });
    $("search").disabled = true;
    status.textContent = `checking ${name}\u2026`;
    clearInterval(ui.polling);
    ui.polling = setInterval(async () => {
      try {
        s = await api("/api/search/" + s.id);
      } catch (e) {
        clearInterval(ui.polling); $("search").disabled = false; status.textContent = e.message; return;
      }
      const p = s.progress;
      if (s.state === "running") {
        status.textContent = `checking ${name}: ` + (p.distinct !== undefined
          ? `level ${p.level}, ${p.distinct.toLocaleString()} states, ${s.seconds} s` : `starting, ${s.seconds} s`);
        return;
      }
      clearInterval(ui.polling);
      $("search").disabled = false;
      status.textContent = s.message;
      status.dataset.state = s.state;
      if (s.path) {
        ui.trace = { name: `shortest path to ${s.property}`, path: s.path, loop_start: null, status: s.status };
        ui.future = s.path.slice();
        go(s.path);
      }
    }, 250);
  } catch (e) {
    status.textContent = e.message;
  }
}

// -- start --------------------------------------------------------------------------------------------------
async function start() {
  try {
    ui.model = await api("/api/model");
  } catch (e) {
    showError(e.message);
    return;
  }
  $("config").textContent = `${ui.model.model}: ${ui.model.short} (within ${ui.model.bounds})`;
  $("search-property").replaceChildren(...ui.model.properties.map((p) =>
    el("option", { value: p.name, title: p.summary }, `${p.name} (${p.kind})`)));
  chooseTraces(ui.model.traces);
  const at = fromAddress();
  ui.watch = at.watch;
  if (!at.labels.length && ui.model.traces.length) { ui.trace = ui.model.traces[0]; ui.future = ui.trace.path.slice(); }
  if (!(await go(at.labels, "replace"))) {
    const message = $("error").textContent;
    await go([], "replace");
    showError(message + " \u2014 showing the initial state instead.");
  }
}

$("back").addEventListener("click", back);
$("forward").addEventListener("click", forward);
$("restart").addEventListener("click", () => go([]));
$("search").addEventListener("click", search);
$("trace-file").addEventListener("change", (e) => { if (e.target.files[0]) loadFile(e.target.files[0]); });
$("trace-choice").addEventListener("change", (e) => useTrace(ui.traces[Number(e.target.value)]));
window.addEventListener("popstate", () => { const at = fromAddress(); ui.watch = at.watch; go(at.labels, "none"); });
document.addEventListener("keydown", (e) => {
  if (e.altKey && e.key === "ArrowLeft") { e.preventDefault(); back(); }
  if (e.altKey && e.key === "ArrowRight") { e.preventDefault(); forward(); }
});
start();
