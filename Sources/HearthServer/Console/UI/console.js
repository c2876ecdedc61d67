// The console's entry point: the tabs (one module a panel), the page address
// (#tab?database=…&path=… — shareable, and how the request log links to documents), the
// live event stream and the state the panels share (the databases, the one selected).
import { call, connectEvents, on, showClock } from "./api.js";
import * as data from "./data.js";
import * as query from "./query.js";
import * as requests from "./requests.js";
import * as rules from "./rules.js";
import * as listeners from "./listeners.js";
import * as database from "./database.js";
import * as faults from "./faults.js";

const panels = { data, query, requests, rules, listeners, database, faults };

/** What every panel shares. */
export const shared = {
  info: null,
  /** [{project, rules, databases: [{name, database, documents, indexMode}]}] */
  projects: [],
  /** The selected database's name, projects/{p}/databases/{d}. */
  database: null,
  currentTab: null,
  async refreshDatabases() {
    const { projects } = await call("GET", "/api/databases");
    shared.projects = projects;
    const names = projects.flatMap((p) => p.databases.map((d) => d.name));
    if (!shared.database || !names.includes(shared.database)) shared.database = names[0] || null;
    for (const p of Object.values(panels)) p.databasesChanged?.();
  },
  /** Goes to a tab with parameters (they become the page address). */
  navigate(tab, params = {}) {
    const q = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined && v !== null)).toString();
    const hash = `#${tab}${q ? "?" + q : ""}`;
    if (location.hash === hash) route(); else location.hash = hash;
  },
  selectDatabase(name) {
    shared.database = name;
    for (const p of Object.values(panels)) p.databasesChanged?.();
  },
};

function route() {
  const hash = location.hash.slice(1) || "data";
  const [tab, q] = hash.split("?");
  const name = panels[tab] ? tab : "data";
  const params = Object.fromEntries(new URLSearchParams(q || ""));
  if (params.database) shared.database = params.database;
  for (const a of document.querySelectorAll("#tabs a")) a.classList.toggle("active", a.dataset.tab === name);
  for (const [key] of Object.entries(panels)) document.getElementById(`panel-${key}`).hidden = key !== name;
  shared.currentTab = name;
  panels[name].show(params);
}

async function start() {
  shared.info = await call("GET", "/api/info");
  document.getElementById("emulator-address").textContent = `FIRESTORE_EMULATOR_HOST=${shared.info.emulator}`;
  showClock(shared.info.clock);
  await shared.refreshDatabases();
  for (const [key, panel] of Object.entries(panels)) panel.init(document.getElementById(`panel-${key}`), shared);
  on("databases", () => shared.refreshDatabases());
  on("changes", (e) => {
    for (const p of shared.projects) for (const d of p.databases) if (d.name === e.database) d.documents = e.count;
  });
  window.addEventListener("hashchange", route);
  route();
  connectEvents();
  setInterval(async () => showClock((await call("GET", "/api/info")).clock), 5000);
}

start().catch((e) => {
  document.querySelector("main").textContent = `The console could not start: ${e.message}`;
});
