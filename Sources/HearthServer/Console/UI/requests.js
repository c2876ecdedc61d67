// The Requests panel: every request the front ends served (REST, gRPC, WebChannel) while a
// console was open, live, newest first; filter by verdict, path and caller; a row opens the
// rules verdicts (each `allow` evaluated, with its line and result, and the debug() output)
// and links to the document.
import { call, h, on, url } from "./api.js";

const MAX_ROWS = 2000;
let root, shared, rows = [], tbody, filters = {}, expanded = new Set(), unseen = 0;

export function init(element, sharedState) {
  root = element;
  shared = sharedState;
  filters.verdict = h("select", { id: "filter-verdict", onchange: render },
    h("option", { value: "" }, "all verdicts"), h("option", { value: "deny" }, "denied"), h("option", { value: "allow" }, "allowed"),
    h("option", { value: "none" }, "no rules checked"), h("option", { value: "error" }, "failed"));
  filters.path = h("input", { id: "filter-path", placeholder: "path contains…", oninput: render });
  filters.caller = h("input", { id: "filter-caller", placeholder: "caller (uid, owner, unauthenticated)…", oninput: render });
  filters.transport = h("select", { id: "filter-transport", onchange: render },
    h("option", { value: "" }, "all transports"), ["REST", "gRPC", "WebChannel", "Trigger"].map((t) => h("option", { value: t }, t)));
  tbody = h("tbody", { id: "request-rows" });
  root.append(
    h("div", { class: "toolbar" }, filters.verdict, filters.transport, filters.path, filters.caller, h("span", { class: "grow" }),
      h("span", { class: "muted", id: "request-count" }), h("button", { id: "clear-requests", onclick: () => { rows = []; expanded.clear(); render(); } }, "Clear")),
    h("div", { class: "scroll" }, h("table", { class: "grid", id: "request-table" },
      h("thead", {}, h("tr", {}, ["Time", "Transport", "Method", "Path", "Caller", "Duration", "Status", "Rules"].map((t) => h("th", {}, t)))),
      tbody)));
  on("request", (entry) => {
    add(entry);
    if (shared.currentTab === "requests") render(); else { unseen += 1; badge(); }
  });
  // On (re)connection, fetch what was recorded in the meantime.
  on("connected", async () => {
    const last = rows.length ? rows[0].id : 0;
    const res = await call("GET", url("/api/requests", { after: last }));
    for (const e of res.requests) add(e);
    render();
  });
}

function add(entry) {
  if (rows.some((r) => r.id === entry.id)) return;
  rows.push(entry);
  rows.sort((a, b) => b.id - a.id);
  if (rows.length > MAX_ROWS) rows.length = MAX_ROWS;
}

function badge() {
  const b = document.getElementById("request-badge");
  b.hidden = unseen === 0;
  b.textContent = unseen > 99 ? "99+" : String(unseen);
}

export function show() {
  unseen = 0;
  badge();
  render();
}

function callerText(c) {
  return c.kind === "user" ? c.uid || "(empty uid)" : c.kind;
}

function matches(e) {
  const v = filters.verdict.value;
  if (v === "deny" && e.verdict !== "deny") return false;
  if (v === "allow" && e.verdict !== "allow") return false;
  if (v === "none" && e.verdict) return false;
  if (v === "error" && e.status === "OK") return false;
  if (filters.transport.value && e.transport !== filters.transport.value) return false;
  const p = filters.path.value.trim();
  if (p && !e.path.includes(p) && !(e.resources || []).some((r) => r.includes(p))) return false;
  const c = filters.caller.value.trim().toLowerCase();
  if (c && !callerText(e.caller).toLowerCase().includes(c)) return false;
  return true;
}

function render() {
  if (!tbody) return;
  const shown = rows.filter(matches);
  document.getElementById("request-count").textContent = `${shown.length} of ${rows.length} requests`;
  tbody.replaceChildren(...(shown.length ? shown.flatMap(row) : [h("tr", {}, h("td", { colspan: 8, class: "empty" },
    rows.length ? "No request matches the filters." : "Requests appear here as apps make them."))]));
}

function row(e) {
  const open = expanded.has(e.id);
  const status = e.httpStatus ? `${e.httpStatus} ${e.status}` : e.status;
  const tr = h("tr", { class: "entry", dataset: { id: e.id, verdict: e.verdict || "none" }, onclick: () => {
    if (expanded.has(e.id)) expanded.delete(e.id); else expanded.add(e.id);
    render();
  } },
    h("td", { class: "mono" }, e.time.slice(11, 23)),
    h("td", {}, e.transport),
    h("td", { class: "mono" }, e.method),
    h("td", { class: "mono" }, shortPath(e)),
    h("td", { class: "caller" }, callerText(e.caller)),
    h("td", { class: "mono" }, `${e.durationMs.toFixed(2)} ms`),
    h("td", { class: e.status === "OK" ? "status-ok" : "status-error" }, status),
    h("td", {}, e.verdict ? h("span", { class: `verdict ${e.verdict}` }, e.verdict === "allow" ? "ALLOW" : "DENY") : h("span", { class: "muted" }, "—")));
  return open ? [tr, detail(e)] : [tr];
}

function shortPath(e) {
  if (e.resources?.length) return e.resources.join(", ");
  return e.path;
}

function detail(e) {
  const links = (e.resources || []).map((r) => h("a", { href: "#", class: "open-document", onclick: (ev) => {
    ev.preventDefault();
    shared.navigate("data", { database: e.database, path: r });
  } }, r));
  return h("tr", { class: "detail" }, h("td", { colspan: 8 },
    h("div", {}, h("strong", {}, "Request "), h("code", {}, `${e.method} ${e.path}`)),
    e.database ? h("div", {}, h("strong", {}, "Database "), h("code", {}, e.database), links.length ? [" · open ", links.flatMap((l, i) => (i ? [", ", l] : [l]))] : null) : null,
    e.message ? h("div", { class: "error" }, e.message) : null,
    e.rules.length ? e.rules.map(decision) : h("div", { class: "muted" }, e.caller.kind === "owner" ? "Owner requests bypass the security rules." : "No security rules were checked (none are loaded for this project, or the request failed before)."),
  ));
}

function decision(d) {
  return h("div", { class: "decision" },
    h("div", {}, h("span", { class: `verdict ${d.allowed ? "allow" : "deny"}` }, d.allowed ? "ALLOW" : "DENY"), " ",
      h("code", {}, `${d.method} ${d.path}`)),
    d.allows.length ? d.allows.map((a) => h("div", { class: `allow-line ${a.result}` },
      `L${a.line}:${a.column}  allow ${a.methods.join(", ")}: ${a.result === "error" ? `error: ${a.error}` : a.result}${a.deciding ? "  ← decided" : ""}`))
      : h("div", { class: "allow-line false" }, "No matching allow statements"),
    d.debug.length ? h("div", { class: "debug" }, "debug():\n" + d.debug.join("\n")) : null);
}
