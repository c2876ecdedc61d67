// The Faults panel: the faults injected right now (docs/faults.md) — set through
// /emulator/v1/projects/{p}/faults, `hearth serve --fault` or a test — what each hits, what it
// does, how often and how many requests it hit so far, and a button that clears them all.
import { call, h } from "./api.js";

let root, tbody, timer = null;

export function init(element) {
  root = element;
  tbody = h("tbody", { id: "fault-rows" });
  root.append(
    h("div", { class: "toolbar" },
      h("strong", {}, "Active faults"), h("span", { class: "muted", id: "fault-count" }),
      h("button", { id: "clear-faults", onclick: clearAll }, "Clear all")),
    h("table", { class: "grid", id: "fault-table" },
      h("thead", {}, h("tr", {}, ["#", "Project", "Database", "Method", "Path", "Effect", "How often", "Fired"].map((t) => h("th", {}, t)))),
      tbody));
  refresh();
}

async function refresh() {
  const { faults } = await call("GET", "/api/faults");
  render(faults);
}

async function clearAll() {
  const { faults } = await call("DELETE", "/api/faults");
  render(faults);
}

export function show() {
  refresh();
  // Faults fire as requests come: the counts are read again while the panel is shown.
  if (timer === null) timer = setInterval(() => { if (!root.hidden) refresh(); else { clearInterval(timer); timer = null; } }, 1000);
}

function effect(f) {
  const parts = [];
  if (f.delay) parts.push(`delay ${f.delay} ms`);
  if (f.error) parts.push(`${f.error}: ${f.message}`);
  if (f.dropAfter !== undefined) parts.push(`drop the stream after ${f.dropAfter} messages`);
  if (f.reset) parts.push("reset the connection");
  if (f.dropAnswer) parts.push("carry out, drop the answer");
  return parts.join(", ");
}

function often(f) {
  if (f.times !== undefined) return `${f.remaining} of ${f.times} left`;
  if (f.probability !== undefined) return `p = ${f.probability} (seed ${f.seed})`;
  return "always";
}

function render(faults) {
  const badge = document.getElementById("fault-badge");
  badge.hidden = faults.length === 0;
  badge.textContent = String(faults.length);
  document.getElementById("fault-count").textContent = ` ${faults.length} active`;
  document.getElementById("clear-faults").disabled = faults.length === 0;
  tbody.replaceChildren(...(faults.length ? faults.map((f) => h("tr", { dataset: { fault: f.id } },
    h("td", {}, f.id),
    h("td", {}, f.project || "every"),
    h("td", {}, f.database || "every"),
    h("td", {}, f.method || "every"),
    h("td", { class: "mono" }, f.path || "—"),
    h("td", {}, effect(f)),
    h("td", {}, often(f)),
    h("td", {}, f.fired)))
    : [h("tr", {}, h("td", { colspan: 8, class: "empty" }, "No faults are set. Add them with POST /emulator/v1/projects/{p}/faults or hearth serve --fault (docs/faults.md)."))]));
}
