// The Query panel: a collection (or collection group), filters, orderings and a limit, run
// by the engine; the results, and whether production Firestore would need a composite
// index for the query — with the firestore.indexes.json entry to add.
import { attempt, call, h, url } from "./api.js";
import { renderFields, valueEditor } from "./values.js";

const OPERATORS = [["==", "EQUAL"], ["!=", "NOT_EQUAL"], ["<", "LESS_THAN"], ["<=", "LESS_THAN_OR_EQUAL"], [">", "GREATER_THAN"],
  [">=", "GREATER_THAN_OR_EQUAL"], ["array-contains", "ARRAY_CONTAINS"], ["in", "IN"], ["not-in", "NOT_IN"],
  ["array-contains-any", "ARRAY_CONTAINS_ANY"]];
const LIST_OPERATORS = new Set(["IN", "NOT_IN", "ARRAY_CONTAINS_ANY"]);

let root, shared, form = {}, results;

export function init(element, sharedState) {
  root = element;
  shared = sharedState;
  form.database = h("select", { id: "query-database", onchange: () => shared.selectDatabase(form.database.value) });
  form.collection = h("input", { id: "query-collection", placeholder: "collection path, e.g. users or users/alice/posts", size: 38 });
  form.group = h("input", { type: "checkbox", id: "query-group" });
  form.filters = h("div", { class: "clauses", id: "query-filters" });
  form.orders = h("div", { class: "clauses", id: "query-orders" });
  form.limit = h("input", { id: "query-limit", class: "num", size: 6, placeholder: "none" });
  results = h("div", { id: "query-results" });
  root.append(
    h("div", { class: "query-form" },
      h("div", { class: "row" }, "Database", form.database, "Collection", form.collection,
        h("label", { class: "inline" }, form.group, "collection group")),
      h("div", {}, h("strong", {}, "Where"), form.filters, h("button", { type: "button", id: "add-filter", onclick: () => addFilter() }, "+ filter")),
      h("div", {}, h("strong", {}, "Order by"), form.orders, h("button", { type: "button", id: "add-order", onclick: () => addOrder() }, "+ order")),
      h("div", { class: "row" }, "Limit", form.limit, h("button", { class: "primary", id: "run-query", onclick: run }, "Run query"))),
    results);
  databasesChanged();
}

export function databasesChanged() {
  if (!form.database) return;
  form.database.replaceChildren(...shared.projects.flatMap((p) => p.databases.map((d) => h("option", { value: d.name }, d.name))));
  if (shared.database) form.database.value = shared.database;
}

export function show(params) {
  databasesChanged();
  if (params.collection) form.collection.value = params.collection;
}

function addFilter() {
  const field = h("input", { class: "filter-field", placeholder: "field (a.b for nested)" });
  const op = h("select", { class: "filter-op" }, OPERATORS.map(([label, v]) => h("option", { value: v }, label)));
  const editor = valueEditor(undefined, shared.database);
  const row = h("div", { class: "clause" }, field, op, editor.element,
    h("button", { type: "button", class: "icon", onclick: () => row.remove() }, "✕"));
  row.read = () => {
    if (!field.value) throw new Error("Every filter needs a field.");
    const value = editor.read();
    if (LIST_OPERATORS.has(op.value) && !("arrayValue" in value)) throw new Error(`${op.selectedOptions[0].text} needs an array value.`);
    return { fieldFilter: { field: { fieldPath: fieldPath(field.value) }, op: op.value, value } };
  };
  form.filters.append(row);
  return { field, op, editor };
}

function addOrder() {
  const field = h("input", { class: "order-field", placeholder: "field" });
  const dir = h("select", { class: "order-direction" }, h("option", { value: "ASCENDING" }, "ascending"), h("option", { value: "DESCENDING" }, "descending"));
  const row = h("div", { class: "clause" }, field, dir, h("button", { type: "button", class: "icon", onclick: () => row.remove() }, "✕"));
  row.read = () => {
    if (!field.value) throw new Error("Every ordering needs a field.");
    return { field: { fieldPath: fieldPath(field.value) }, direction: dir.value };
  };
  form.orders.append(row);
}

/** A dotted path typed by the user, as a server field path (segments that are not plain
 * identifiers are back-quoted). */
function fieldPath(text) {
  if (text === "__name__") return text;
  return text.split(".").map((s) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(s) ? s : "`" + s.replace(/[`\\]/g, "\\$&") + "`")).join(".");
}

async function run() {
  results.replaceChildren();
  let body;
  try {
    const path = form.collection.value.trim().replace(/^\/+|\/+$/g, "");
    const parts = path.split("/");
    if (!path || parts.includes("")) throw new Error("Give a collection path.");
    if (form.group.checked && parts.length !== 1) throw new Error("A collection group is one collection id.");
    if (!form.group.checked && parts.length % 2 === 0) throw new Error(`${path} is a document path; give a collection.`);
    const filters = [...form.filters.children].map((r) => r.read());
    const orders = [...form.orders.children].map((r) => r.read());
    const query = { from: [{ collectionId: parts[parts.length - 1], allDescendants: form.group.checked }] };
    if (filters.length === 1) query.where = filters[0];
    if (filters.length > 1) query.where = { compositeFilter: { op: "AND", filters } };
    if (orders.length) query.orderBy = orders;
    if (form.limit.value.trim()) {
      const n = Number(form.limit.value);
      if (!Number.isInteger(n) || n < 0) throw new Error("The limit is a whole number.");
      query.limit = n;
    }
    body = { parent: form.group.checked ? "" : parts.slice(0, -1).join("/"), structuredQuery: query };
  } catch (e) {
    results.append(h("div", { class: "error index-box" }, e.message));
    return;
  }
  const res = await attempt(() => call("POST", url("/api/query", { database: form.database.value }), body));
  if (!res) return;
  results.append(indexBox(res));
  if (res.error) results.append(h("div", { class: "index-box error", id: "query-error" }, `${res.error.status}: ${res.error.message}`));
  if (res.documents) {
    results.append(h("div", { class: "toolbar" }, h("strong", { id: "query-count" }, `${res.documents.length} document${res.documents.length === 1 ? "" : "s"}`),
      h("span", { class: "muted" }, ` ${res.query} · read at ${res.readTime}`)));
    results.append(h("table", { class: "grid", id: "query-table" },
      h("thead", {}, h("tr", {}, h("th", {}, "Document"), h("th", {}, "Fields"))),
      h("tbody", {}, res.documents.map((d) => h("tr", {},
        h("td", { class: "mono" }, h("a", { href: "#", onclick: (e) => { e.preventDefault(); shared.navigate("data", { database: form.database.value, path: d.path }); } }, d.path)),
        h("td", {}, renderFields(d.fields, { depthOpen: 0 })))))));
  }
}

function indexBox(res) {
  if (!res.missingIndexes.length) {
    return h("div", { class: "index-box served", id: "index-analysis" },
      h("strong", {}, "No composite index needed. "), "Production Firestore serves this query with its automatic single-field indexes",
      res.indexMode === "off" ? "." : ` (index mode here: ${res.indexMode}).`);
  }
  return h("div", { class: "index-box needed", id: "index-analysis" },
    h("strong", {}, `Production Firestore needs ${res.missingIndexes.length === 1 ? "an index" : `${res.missingIndexes.length} indexes`} for this query`),
    ` (index mode here: ${res.indexMode}${res.indexMode === "enforce" ? ": the query fails until it is declared" : ""}).`,
    res.missingIndexes.map((m) => h("div", {}, h("code", {}, m.description))),
    h("p", {}, "Add to firestore.indexes.json:"),
    h("pre", { id: "index-json" }, res.indexesJSON),
    h("details", {}, h("summary", {}, "Production's error message"), h("pre", {}, res.missingIndexes.map((m) => m.productionError).join("\n\n"))));
}
