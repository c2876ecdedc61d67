// The Data panel: projects and databases in a tree; then, Firestore-console style, three
// columns under breadcrumbs — the collections of the current parent (the database root or
// a document), one page of the selected collection's documents (paged by cursor: a large
// collection opens at once) and the selected document's typed fields with its
// subcollections. Live: a change to what is shown reloads it and flashes the rows.
import { attempt, call, debounce, dialog, emulatorPath, h, on, toast, url } from "./api.js";
import { mapRows, patchFor, renderFields, valueAt, valueEditor } from "./values.js";

const PAGE = 50;
let root, shared;
/** Where we are: the parent whose collections are listed (""= root), the collection and the document. */
const view = { parent: "", collection: null, document: null, cursor: null, page: null, flash: new Set(),
  /** The open collection's size: counted once when it opens (an aggregation reads every
   * document), then kept up to date from the live changes. */
  count: null };
let els = {};

export function init(element, sharedState) {
  root = element;
  shared = sharedState;
  els.tree = h("nav", { class: "tree", id: "database-tree" });
  els.crumbs = h("div", { class: "crumbs", id: "crumbs" });
  els.collections = h("div", { class: "column", id: "collections-column" });
  els.documents = h("div", { class: "column", id: "documents-column" });
  els.document = h("div", { class: "column", id: "document-column" });
  root.append(h("div", { class: "data" }, els.tree,
    h("div", {}, els.crumbs, h("div", { class: "columns" }, els.collections, els.documents, els.document))));
  const reload = debounce(() => render(false), 120);
  on("changes", (e) => {
    if (e.database !== shared.database) { renderTree(); return; }
    if (e.reset) view.count = null;
    for (const c of e.changes || []) {
      view.flash.add(c.path);
      if (view.count && view.count.collection === view.collection && c.path.slice(0, c.path.lastIndexOf("/")) === view.collection) {
        view.count.n += c.kind === "added" ? 1 : c.kind === "removed" ? -1 : 0;
      }
    }
    renderTree();
    if (shared.currentTab === "data") reload();
  });
}

export function databasesChanged() {
  if (root) renderTree();
}

/** `path` (optional) is a collection or document inside `database`. */
export function show(params) {
  if (params.path !== undefined) {
    const parts = params.path.split("/").filter(Boolean);
    const previousCollection = view.collection;
    if (parts.length % 2 === 1) {
      view.parent = parts.slice(0, -1).join("/");
      view.collection = parts.join("/");
      view.document = null;
    } else if (parts.length) {
      view.parent = parts.slice(0, -2).join("/");
      view.collection = parts.slice(0, -1).join("/");
      view.document = parts.join("/");
    } else {
      Object.assign(view, { parent: "", collection: null, document: null });
    }
    // Keep the page when the document is on it; otherwise open the page that starts with it.
    const onPage = view.collection === previousCollection && view.page?.documents.some((d) => d.path === view.document);
    if (!onPage) view.cursor = view.document ? { from: parts[parts.length - 1] } : null;
  }
  renderTree();
  render(true);
}

function go(path) {
  shared.navigate("data", { database: shared.database, path });
}

function renderTree() {
  els.tree.replaceChildren(...shared.projects.map((p) =>
    h("details", { open: true, dataset: { project: p.project } },
      h("summary", {}, p.project, p.rules ? h("span", { class: "tag", title: "security rules are enforced for this project" }, "rules") : null),
      p.databases.length ? p.databases.map((d) =>
        h("a", { class: `db${d.name === shared.database ? " active" : ""}`, href: "#", dataset: { database: d.name },
          onclick: (e) => { e.preventDefault(); shared.selectDatabase(d.name); go(""); } },
          d.database, " ", h("span", { class: "count" }, `${d.documents.toLocaleString()} docs`)))
        : h("div", { class: "db muted" }, "no databases yet"))));
}

async function render(resetScroll) {
  if (!shared.database) {
    els.crumbs.replaceChildren("No databases yet: write a document through the emulator, or load a seed with hearth serve --seed.");
    return;
  }
  renderCrumbs();
  await Promise.all([renderCollections(), renderDocuments(resetScroll), renderDocument()]);
  view.flash.clear();
}

function renderCrumbs() {
  const [, project, , database] = shared.database.split("/");
  const parts = (view.document || view.collection || view.parent || "").split("/").filter(Boolean);
  const items = [h("a", { href: "#", onclick: (e) => { e.preventDefault(); go(""); } }, `${project} / ${database}`)];
  parts.forEach((p, i) => {
    const path = parts.slice(0, i + 1).join("/");
    items.push(h("span", { class: "sep" }, "/"), h("a", { href: "#", dataset: { path }, onclick: (e) => { e.preventDefault(); go(path); } }, p));
  });
  els.crumbs.replaceChildren(...items);
}

function columnHead(title, ...buttons) {
  return h("div", { class: "column-head" }, h("h2", { title }, title), ...buttons);
}

async function renderCollections() {
  const res = await attempt(() => call("GET", url("/api/collections", { database: shared.database, parent: view.parent })));
  if (!res) return;
  const title = view.parent ? view.parent : "(root)";
  els.collections.replaceChildren(
    columnHead(title, h("button", { class: "icon", title: "Start a collection", id: "start-collection", onclick: () => startCollection(view.parent) }, "+ collection")),
    h("div", { class: "column-body" },
      res.collections.length ? h("ul", { class: "list", id: "collection-list" }, res.collections.map((id) => {
        const path = view.parent ? `${view.parent}/${id}` : id;
        return h("li", { class: path === view.collection ? "selected" : "", dataset: { collection: path }, onclick: () => go(path) }, id);
      })) : h("div", { class: "empty" }, "No collections")));
}

async function renderDocuments(resetScroll) {
  if (!view.collection) { els.documents.replaceChildren(columnHead("")); return; }
  const counted = view.count?.collection === view.collection && view.count?.database === shared.database;
  const params = { database: shared.database, collection: view.collection, pageSize: PAGE, count: counted ? undefined : "true", ...(view.cursor || {}) };
  const page = await attempt(() => call("GET", url("/api/documents", params)));
  if (!page) return;
  if (page.count !== undefined) view.count = { database: shared.database, collection: view.collection, n: page.count };
  if (!page.documents.length && view.cursor) { view.cursor = null; return renderDocuments(resetScroll); }
  view.page = page;
  const body = h("div", { class: "column-body" });
  const oldBody = els.documents.querySelector(".column-body");
  const scroll = oldBody && !resetScroll ? oldBody.scrollTop : 0;
  body.append(page.documents.length ? h("ul", { class: "list", id: "document-list" }, page.documents.map((d) =>
    h("li", { class: [d.path === view.document ? "selected" : "", view.flash.has(d.path) ? "flash" : ""].join(" ").trim(),
      dataset: { document: d.path }, onclick: () => go(d.path) }, d.path.split("/").pop())))
    : h("div", { class: "empty" }, "No documents"));
  const first = page.documents[0]?.path.split("/").pop(), last = page.documents[page.documents.length - 1]?.path.split("/").pop();
  const jump = h("input", { placeholder: "go to id…", id: "jump-to-id", onkeydown: (e) => {
    if (e.key === "Enter" && jump.value) { view.cursor = { from: jump.value }; renderDocuments(true); }
  } });
  const pager = h("div", { class: "pager", id: "pager" },
    h("button", { id: "previous-page", disabled: !page.hasPrevious, onclick: () => { view.cursor = { before: first }; renderDocuments(true); } }, "‹ Prev"),
    h("button", { id: "next-page", disabled: !page.hasNext, onclick: () => { view.cursor = { after: last }; renderDocuments(true); } }, "Next ›"),
    h("span", { class: "grow muted", id: "page-info" }, page.documents.length ? `${first} … ${last}` : ""),
    jump);
  els.documents.replaceChildren(
    columnHead(`${view.collection.split("/").pop()}${view.count ? ` (${view.count.n.toLocaleString()})` : ""}`,
      h("button", { class: "icon", id: "add-document", title: "Add a document", onclick: addDocument }, "+ document"),
      h("button", { class: "icon danger", id: "delete-collection", title: "Delete this collection and everything under it", onclick: deleteCollection }, "delete")),
    body, pager);
  body.scrollTop = scroll;
}

async function renderDocument() {
  if (!view.document) { els.document.replaceChildren(columnHead("")); return; }
  const res = await attempt(() => call("GET", url("/api/document", { database: shared.database, path: view.document })));
  if (!res) return;
  const id = view.document.split("/").pop();
  if (!res.document) {
    els.document.replaceChildren(columnHead(id), h("div", { class: "empty", id: "missing-document" }, "This document does not exist",
      res.collections.length ? " (it has subcollections)" : ""), subcollections(res.collections));
    return;
  }
  const doc = res.document;
  const actions = (path, value) => [
    h("button", { class: "icon edit-field", title: "Edit", onclick: () => editField(doc, path, value) }, "✎"),
    h("button", { class: "icon delete-field", title: "Delete field", onclick: () => deleteField(doc, path) }, "✕"),
  ];
  els.document.replaceChildren(
    columnHead(id,
      h("button", { class: "icon", id: "add-field", title: "Add a field", onclick: () => addField(doc) }, "+ field"),
      h("button", { class: "icon danger", id: "delete-document", title: "Delete this document", onclick: () => deleteDocument(res.collections.length > 0) }, "delete")),
    h("div", { class: "column-body", id: "document-body" },
      h("div", { class: "meta" }, `created ${doc.createTime} · updated ${doc.updateTime}`),
      renderFields(doc.fields, { actions, openReference: go }),
      subcollections(res.collections)));
}

function subcollections(ids) {
  if (!ids.length) return h("div", { class: "subcollections" }, h("button", { class: "icon", onclick: () => startCollection(view.document) }, "+ subcollection"));
  return h("div", { class: "subcollections" }, h("h3", {}, "Subcollections"),
    h("ul", { class: "list", id: "subcollection-list" }, ids.map((c) => h("li", { dataset: { collection: `${view.document}/${c}` }, onclick: () => go(`${view.document}/${c}`) }, c))));
}

// MARK: Editing

async function patch(path, body, message) {
  const res = await attempt(() => call("PATCH", url("/api/document", { database: shared.database, path }), body), message);
  if (res) render(false);
}

async function editField(doc, path, value) {
  const editor = valueEditor(value, shared.database);
  if (!await dialog(`Edit ${path.join(".")}`, editor.element, "Save", () => { editor.read(); })) return;
  patch(doc.path, patchFor(doc.fields, path, editor.read()), `Saved ${path.join(".")}`);
}

async function deleteField(doc, path) {
  if (!confirm(`Delete the field ${path.join(".")}?`)) return;
  patch(doc.path, patchFor(doc.fields, path, undefined), `Deleted ${path.join(".")}`);
}

async function addField(doc) {
  const name = h("input", { class: "name", id: "new-field-name", placeholder: "field (dots nest into maps)" });
  const editor = valueEditor(undefined, shared.database);
  const validate = () => {
    if (!name.value) throw new Error("The field needs a name.");
    editor.read();
  };
  if (!await dialog("Add a field", h("div", { class: "editor-row" }, name, editor.element), "Add", validate)) return;
  const path = name.value.split(".");
  if (valueAt(doc.fields, path) !== undefined && !confirm(`${name.value} exists; replace it?`)) return;
  patch(doc.path, patchFor(doc.fields, path, editor.read()), `Added ${name.value}`);
}

async function addDocument() {
  const id = h("input", { id: "new-document-id", placeholder: "document id (empty: a random id)", size: 34 });
  const rows = mapRows({}, shared.database);
  rows.add();
  if (!await dialog(`Add a document to ${view.collection}`, h("div", {}, h("label", { class: "inline" }, "ID ", id), h("h3", {}, "Fields"), rows.element), "Save", () => { rows.read(); })) return;
  const body = { fields: rows.read() };
  const res = id.value
    ? await attempt(() => call("PUT", url("/api/document", { database: shared.database, path: `${view.collection}/${id.value}` }), body))
    : await attempt(() => call("POST", url("/api/document", { database: shared.database, collection: view.collection }), body));
  if (res) { toast(`Saved ${res.document.path}`); go(res.document.path); }
}

async function startCollection(parent) {
  const cid = h("input", { placeholder: "collection id" });
  const docID = h("input", { placeholder: "first document id (empty: random)" });
  const rows = mapRows({}, shared.database);
  rows.add();
  const parentLabel = parent || "(root)";
  if (!await dialog(`Start a collection under ${parentLabel}`, h("div", {}, h("div", { class: "editor-row" }, cid, docID), rows.element), "Save",
    () => { if (!cid.value || cid.value.includes("/")) throw new Error("A collection id is one non-empty segment."); rows.read(); })) return;
  const collection = parent ? `${parent}/${cid.value}` : cid.value;
  const body = { fields: rows.read() };
  const res = docID.value
    ? await attempt(() => call("PUT", url("/api/document", { database: shared.database, path: `${collection}/${docID.value}` }), body))
    : await attempt(() => call("POST", url("/api/document", { database: shared.database, collection }), body));
  if (res) go(res.document.path);
}

async function deleteDocument(hasSubcollections) {
  const path = view.document;
  if (hasSubcollections) {
    const all = confirm(`${path} has subcollections.\nOK: delete the document AND everything under it.\nCancel: keep it.`);
    if (!all) return;
    if (await attempt(() => call("DELETE", emulatorPath(shared.database, path)), `Deleted ${path} and its subcollections`)) go(view.collection);
    return;
  }
  if (!confirm(`Delete ${path}?`)) return;
  if (await attempt(() => call("DELETE", url("/api/document", { database: shared.database, path })), `Deleted ${path}`)) go(view.collection);
}

async function deleteCollection() {
  const path = view.collection;
  const count = view.count?.n;
  if (!confirm(`Delete the collection ${path}${count !== undefined ? ` (${count.toLocaleString()} documents)` : ""} and every subcollection under it?`)) return;
  if (await attempt(() => call("DELETE", emulatorPath(shared.database, path)), `Deleted ${path}`)) go(view.parent);
}
