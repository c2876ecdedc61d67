// The Database panel: clear a database, take and restore snapshots, export and import (the
// official emulator's export layout, in folders on the machine running hearth serve), and set
// or release the emulator's clock.
import { attempt, call, emulatorPath, h, showClock, toast, url } from "./api.js";

let root, shared, select, snapshots, clockNow, timeInput, advanceInput, exportDir, exportName, importPath;

export function init(element, sharedState) {
  root = element;
  shared = sharedState;
  select = h("select", { id: "actions-database", onchange: () => { shared.selectDatabase(select.value); listSnapshots(); } });
  snapshots = h("div", { id: "snapshot-list" });
  clockNow = h("code", { id: "clock-now" });
  timeInput = h("input", { id: "clock-time", size: 28, placeholder: "2030-01-01T00:00:00Z" });
  advanceInput = h("input", { id: "clock-advance", size: 6, value: "60" });
  exportDir = h("input", { id: "export-directory", size: 30, placeholder: "/path/to/exports" });
  exportName = h("input", { id: "export-name", size: 18, placeholder: "firestore_export" });
  importPath = h("input", { id: "import-path", size: 44, placeholder: "…/NAME.overall_export_metadata, an export folder, or Hearth JSON" });
  root.append(
    h("div", { class: "toolbar" }, "Database", select),
    h("div", { class: "cards" },
      h("div", { class: "card" }, h("h2", {}, "Clear"),
        h("p", { class: "muted" }, "Deletes every document of the database (listeners see the removals)."),
        h("button", { class: "danger", id: "clear-database", onclick: clear }, "Clear database")),
      h("div", { class: "card" }, h("h2", {}, "Snapshots"),
        h("p", { class: "muted" }, "A snapshot captures the whole database at once; restoring it puts every document back as it was."),
        h("button", { id: "take-snapshot", onclick: take }, "Take snapshot"), snapshots),
      h("div", { class: "card" }, h("h2", {}, "Export and import"),
        h("p", { class: "muted" }, "Folders on the machine running hearth serve, in the layout of firebase emulators:export. An import adds and replaces documents; it does not clear first."),
        h("div", { class: "row" }, exportDir, exportName, h("button", { id: "export-database", onclick: exportDatabase }, "Export")),
        h("div", { class: "row" }, importPath, h("button", { id: "import-data", onclick: importData }, "Import"))),
      h("div", { class: "card" }, h("h2", {}, "Clock"),
        h("p", { class: "muted" }, "The clock gives commit times, serverTimestamp() and request.time."),
        h("div", { class: "row" }, "Now", clockNow),
        h("div", { class: "row" }, timeInput, h("button", { id: "set-clock", onclick: () => setClock({ time: timeInput.value.trim() }) }, "Stop the clock at this time")),
        h("div", { class: "row" }, "Advance by", advanceInput, "seconds", h("button", { id: "advance-clock", onclick: () => setClock({ advanceSeconds: Number(advanceInput.value) }) }, "Advance")),
        h("div", { class: "row" }, h("button", { id: "release-clock", onclick: () => setClock({ system: true }) }, "Release (system time)")))));
  databasesChanged();
}

export function databasesChanged() {
  if (!select) return;
  select.replaceChildren(...shared.projects.flatMap((p) => p.databases.map((d) => h("option", { value: d.name }, `${d.name} (${d.documents.toLocaleString()} docs)`))));
  if (shared.database) select.value = shared.database;
}

export async function show() {
  databasesChanged();
  listSnapshots();
  const info = await call("GET", "/api/info");
  showClockHere(info.clock);
}

function showClockHere(clock) {
  clockNow.textContent = `${clock.now}${clock.manual ? " (stopped: set by hand)" : " (system)"}`;
  showClock(clock);
}

async function listSnapshots() {
  if (!shared.database) return;
  const res = await attempt(() => call("GET", url("/api/snapshots", { database: shared.database })));
  if (!res) return;
  snapshots.replaceChildren(...res.snapshots.map((id) => h("div", { class: "row", dataset: { snapshot: id } }, h("code", {}, id),
    h("button", { class: "restore-snapshot", onclick: () => restore(id) }, "Restore"))));
}

function verb(name) {
  return emulatorPath(shared.database).replace(/\/documents$/, `:${name}`);
}

async function clear() {
  if (!shared.database || !confirm(`Delete every document of ${shared.database}?`)) return;
  await attempt(() => call("DELETE", emulatorPath(shared.database)), `Cleared ${shared.database}`);
  shared.refreshDatabases();
}

async function take() {
  const res = await attempt(() => call("POST", verb("snapshot")));
  if (res) listSnapshots();
}

async function restore(id) {
  if (!confirm(`Restore ${shared.database} to ${id}? Changes since then are lost.`)) return;
  await attempt(() => call("POST", verb("restore"), { id }), `Restored ${id}`);
  shared.refreshDatabases();
}

async function exportDatabase() {
  const directory = exportDir.value.trim();
  if (!shared.database || !directory) { toast("Give the folder to export into.", true); return; }
  const name = exportName.value.trim() || "firestore_export";
  const res = await attempt(() => call("POST", verb("export"), { database: shared.database, export_directory: directory, export_name: name }));
  if (res) {
    const metadata = `${directory.replace(/\/+$/, "")}/${name}/${name}.overall_export_metadata`;
    toast(`Exported ${shared.database} to ${metadata}`);
    if (!importPath.value) importPath.value = metadata;
  }
}

async function importData() {
  const path = importPath.value.trim();
  if (!shared.database || !path) { toast("Give the export (or Hearth JSON) to import.", true); return; }
  if (await attempt(() => call("POST", verb("import"), { database: shared.database, export_directory: path }), `Imported ${path}`)) {
    shared.refreshDatabases();
  }
}

async function setClock(body) {
  const res = await attempt(() => call("PUT", "/emulator/v1/clock", body));
  if (res) showClockHere(res);
}
