// The Rules panel: a project's security rules source with each compile issue under its
// line, coverage as a heat map (each line shaded by how often its expressions were
// evaluated; hover for the counts), and loading a new rules file (from disk or edited
// here). A file that does not compile is shown with its errors in place and not loaded.
import { attempt, call, debounce, h, on, toast } from "./api.js";

let root, shared, project = null, select, body, editor, pendingSource = null;

export function init(element, sharedState) {
  root = element;
  shared = sharedState;
  select = h("select", { id: "rules-project", onchange: () => { project = select.value; pendingSource = null; load(); } });
  const file = h("input", { type: "file", accept: ".rules,text/plain", id: "rules-file", class: "visually-hidden", onchange: async () => {
    const f = file.files[0];
    if (f) deploy(await f.text(), f.name);
    file.value = "";
  } });
  editor = h("textarea", { id: "rules-editor", rows: 24, spellcheck: false, hidden: true, style: "width: 100%" });
  body = h("div", { id: "rules-body" });
  root.append(
    h("div", { class: "toolbar" }, "Project", select,
      h("button", { id: "load-rules-file", onclick: () => file.click() }, "Load rules file…"), file,
      h("button", { id: "edit-rules", onclick: toggleEditor }, "Edit"),
      h("button", { id: "deploy-rules", class: "primary", hidden: true, onclick: () => deploy(editor.value, "firestore.rules") }, "Load these rules"),
      h("span", { class: "grow" }),
      h("span", { class: "heat-legend" }, "never evaluated", h("span", { style: `background:${heat(0, true)}` }),
        h("span", { style: `background:${heat(1, false)}` }), h("span", { style: `background:${heat(30, false)}` }),
        h("span", { style: `background:${heat(1000, false)}` }), "often")),
    h("div", { style: "padding: 0 12px" }, editor),
    body);
  const refresh = debounce(() => { if (shared.currentTab === "rules" && !pendingSource) load(); }, 400);
  on("request", (e) => { if (e.rules.length) refresh(); });
}

export function databasesChanged() {
  if (!select) return;
  const projects = shared.projects.map((p) => p.project);
  select.replaceChildren(...projects.map((p) => h("option", { value: p }, p)));
  const current = shared.database?.split("/")[1];
  if (!project || !projects.includes(project)) project = projects.includes(current) ? current : projects[0] || null;
  if (project) select.value = project;
}

export function show(params) {
  databasesChanged();
  if (params.project) { project = params.project; select.value = project; }
  load();
}

function toggleEditor() {
  editor.hidden = !editor.hidden;
  document.getElementById("deploy-rules").hidden = editor.hidden;
}

async function load() {
  if (!project) { body.replaceChildren(h("div", { class: "empty" }, "No projects yet.")); return; }
  const p = encodeURIComponent(project);
  const rules = await attempt(() => call("GET", `/emulator/v1/projects/${p}:securityRules`));
  if (!rules) return;
  const file = rules.rules.files[0];
  // A project without loaded rules answers with the emulator's open rules, named OPEN_RULES.
  if (!file || file.name === "OPEN_RULES") {
    body.replaceChildren(h("div", { class: "empty", id: "no-rules" }, `No security rules are loaded for ${project}: every request is allowed. Load a rules file to enforce some.`));
    return;
  }
  if (editor.hidden || !editor.value) editor.value = file.content;
  let coverage = null;
  try { coverage = await call("GET", `/emulator/v1/projects/${p}:ruleCoverage`); } catch { /* rules stored with errors have none */ }
  const issues = (rules.issues || []).map((i) => ({ line: i.sourcePosition.line, column: i.sourcePosition.column, message: i.description, severity: i.severity }));
  body.replaceChildren(
    h("div", { class: "toolbar" }, h("strong", {}, file.name),
      coverage ? h("span", { class: "muted", id: "rules-covered" }, `${Math.round(coverage.covered * 100)}% of expressions evaluated`) : null,
      issues.length ? h("span", { class: "muted" }, `${issues.length} issue${issues.length === 1 ? "" : "s"}`) : null),
    source(file.content, issues, coverage));
}

/** The source, a line a row: number, hits, text shaded by coverage, then its issues. */
function source(text, issues, coverage) {
  const byLine = new Map();
  for (const e of coverage?.expressions || []) {
    if (!byLine.has(e.line)) byLine.set(e.line, []);
    byLine.get(e.line).push(e);
  }
  const lines = text.split("\n");
  return h("div", { class: "rules-source", id: "rules-source" }, lines.map((line, i) => {
    const n = i + 1;
    const exprs = byLine.get(n) || [];
    const hits = exprs.length ? Math.max(...exprs.map((e) => e.evaluations)) : null;
    const title = exprs.map((e) => `${e.expression}: ${e.evaluations} evaluated, ${e.true} true, ${e.false} false, ${e.errors} errors`).join("\n");
    return [
      h("div", { class: "line", dataset: { line: n, hits: hits ?? "" }, title: title || undefined, style: hits === null ? undefined : `background:${heat(hits, hits === 0)}` },
        h("span", { class: "ln" }, n), h("span", { class: "hits" }, hits === null ? "" : `${hits}×`), h("span", {}, line || " ")),
      ...issues.filter((x) => x.line === n).map((x) => h("span", { class: `issue${x.severity === "WARNING" ? " warning" : ""}` },
        `${" ".repeat(Math.max(0, x.column - 1))}^ ${x.severity === "WARNING" ? "warning" : "error"}: ${x.message}`)),
    ];
  }).flat());
}

/** Shade for a line evaluated `hits` times (pale red when never). */
function heat(hits, never) {
  if (never) return "#fff0f0";
  const t = Math.min(1, Math.log10(hits + 1) / 3);
  return `rgba(43, 138, 62, ${(0.08 + 0.42 * t).toFixed(2)})`;
}

/** Loads `content` as the project's rules; on compile errors shows them in place. */
async function deploy(content, name) {
  if (!project) return;
  try {
    const res = await call("PUT", `/emulator/v1/projects/${encodeURIComponent(project)}:securityRules`, { rules: { files: [{ name, content }] } });
    pendingSource = null;
    editor.value = content;
    toast(res.issues?.length ? `Loaded ${name} with ${res.issues.length} warning(s)` : `Loaded ${name}`);
    await shared.refreshDatabases();
    load();
  } catch (e) {
    // "Error compiling rules:\nL4:43 message" — show the file with its errors under their lines.
    pendingSource = content;
    const issues = e.message.split("\n").map((l) => /^L(\d+):(\d+) (.*)$/.exec(l)).filter(Boolean)
      .map((m) => ({ line: Number(m[1]), column: Number(m[2]), message: m[3], severity: "ERROR" }));
    body.replaceChildren(
      h("div", { class: "toolbar error", id: "rules-compile-error" }, `${name} does not compile, so it was not loaded (the previous rules stay in force).`),
      source(content, issues, null));
    editor.value = content;
    if (editor.hidden) toggleEditor();
  }
}
