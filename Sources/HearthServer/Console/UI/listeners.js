// The Listeners panel: the Listen and Write streams open right now (gRPC streams and
// WebChannel sessions), who opened them, their database and each Listen target.
import { call, h, on } from "./api.js";

let root, shared, tbody, streams = [];

export function init(element, sharedState) {
  root = element;
  shared = sharedState;
  tbody = h("tbody", { id: "stream-rows" });
  root.append(
    h("div", { class: "toolbar" }, h("strong", {}, "Open streams"), h("span", { class: "muted", id: "stream-count" })),
    h("table", { class: "grid", id: "stream-table" },
      h("thead", {}, h("tr", {}, ["#", "Stream", "Transport", "Caller", "Database", "Opened", "Requests", "Targets"].map((t) => h("th", {}, t)))),
      tbody));
  on("streams", (e) => { streams = e.streams; render(); });
  on("connected", refresh);
  refresh();
}

async function refresh() {
  streams = (await call("GET", "/api/streams")).streams;
  render();
}

export function show() {
  refresh();
}

function render() {
  const listens = streams.filter((s) => s.kind === "Listen").length;
  const badge = document.getElementById("listener-badge");
  badge.hidden = listens === 0;
  badge.textContent = String(listens);
  document.getElementById("stream-count").textContent = ` ${streams.length} open (${listens} Listen)`;
  tbody.replaceChildren(...(streams.length ? streams.map((s) => h("tr", { dataset: { stream: s.id, kind: s.kind } },
    h("td", {}, s.id),
    h("td", {}, s.kind),
    h("td", {}, s.transport),
    h("td", {}, s.caller.kind === "user" ? s.caller.uid : s.caller.kind),
    h("td", { class: "mono" }, s.database || "—"),
    h("td", { class: "mono" }, s.opened.slice(11, 19)),
    h("td", {}, s.requests),
    h("td", {}, s.kind === "Listen"
      ? (s.targets.length ? s.targets.map((t) => h("div", { class: "mono target" }, `${t.id}: `, target(s, t))) : h("span", { class: "muted" }, "no targets"))
      : h("span", { class: "muted" }, "—"))))
    : [h("tr", {}, h("td", { colspan: 8, class: "empty" }, "No streams are open. They appear here when an app listens (onSnapshot) or writes through a stream."))]));
}

function target(s, t) {
  const path = t.kind === "documents" ? t.documents[0] : t.collection;
  return h("a", { href: "#", onclick: (e) => { e.preventDefault(); shared.navigate("data", { database: s.database, path }); } }, t.description);
}
