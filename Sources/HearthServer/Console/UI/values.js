// Firestore values as the REST API encodes them ({"integerValue": "1"}, {"mapValue":
// {"fields": …}}, …): their types, how they are shown, and the type-aware editor that
// builds them. The encoding keeps integers (full int64, as strings) and doubles apart,
// which plain JavaScript numbers cannot.
import { h } from "./api.js";

export const TYPES = ["string", "integer", "double", "boolean", "null", "timestamp", "geopoint",
  "reference", "bytes", "map", "array", "vector"];

/** The type of an encoded value. */
export function typeOf(v) {
  if ("nullValue" in v) return "null";
  if ("booleanValue" in v) return "boolean";
  if ("integerValue" in v) return "integer";
  if ("doubleValue" in v) return "double";
  if ("timestampValue" in v) return "timestamp";
  if ("stringValue" in v) return "string";
  if ("bytesValue" in v) return "bytes";
  if ("referenceValue" in v) return "reference";
  if ("geoPointValue" in v) return "geopoint";
  if ("arrayValue" in v) return "array";
  if ("mapValue" in v) {
    const f = v.mapValue.fields || {};
    if (f.__type__?.stringValue === "__vector__" && f.value?.arrayValue) return "vector";
    return "map";
  }
  return "unknown";
}

/** A document's path inside its database, from a full resource name. */
export function pathOfName(name) {
  const i = name.indexOf("/documents/");
  return i < 0 ? "" : name.slice(i + "/documents/".length);
}

/** Short text for a scalar value. */
export function scalarText(v) {
  switch (typeOf(v)) {
    case "null": return "null";
    case "boolean": return String(v.booleanValue);
    case "integer": return v.integerValue;
    case "double": return String(v.doubleValue);
    case "timestamp": return v.timestampValue;
    case "string": return JSON.stringify(v.stringValue);
    case "bytes": return `b64:${v.bytesValue}`;
    case "reference": return pathOfName(v.referenceValue);
    case "geopoint": return `[${v.geoPointValue.latitude ?? 0}° N, ${v.geoPointValue.longitude ?? 0}° E]`;
    case "vector": return `vector(${(v.mapValue.fields.value.arrayValue.values || []).map((x) => x.doubleValue ?? x.integerValue).join(", ")})`;
    case "array": return `[${(v.arrayValue.values || []).length} items]`;
    case "map": return `{${Object.keys(v.mapValue.fields || {}).length} fields}`;
    default: return JSON.stringify(v);
  }
}

/** Children of a map or array, as [key, value] pairs (keys are indexes for arrays). */
function children(v) {
  const t = typeOf(v);
  if (t === "map") return Object.entries(v.mapValue.fields || {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (t === "array") return (v.arrayValue.values || []).map((x, i) => [i, x]);
  return [];
}

/** The tree of a document's fields. `actions(path, value)` returns the buttons for a field
 * (path: its keys and array indexes from the top); `openReference(path)` follows a reference. */
export function renderFields(fields, { actions, openReference, depthOpen = 1 } = {}) {
  const root = h("div", { class: "fields" });
  const entries = Object.entries(fields || {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (!entries.length) root.append(h("div", { class: "muted" }, "(no fields)"));
  for (const [k, v] of entries) root.append(renderField([k], v, { actions, openReference, depthOpen }));
  return root;
}

function renderField(path, v, options) {
  const t = typeOf(v);
  const key = path[path.length - 1];
  const row = h("span", { class: "row" },
    h("span", { class: "key" }, typeof key === "number" ? `[${key}]` : key), ":",
    valueNode(v, t, options),
    h("span", { class: "type" }, t),
    options.actions ? h("span", { class: "actions" }, options.actions(path, v)) : null);
  const field = h("div", { class: "field", dataset: { path: JSON.stringify(path), type: t } });
  if (t === "map" || t === "array") {
    const details = h("details", { open: path.length <= options.depthOpen }, h("summary", {}, row));
    for (const [k, child] of children(v)) details.append(renderField([...path, k], child, options));
    field.append(details);
  } else {
    field.append(h("div", { class: "row" }, ...row.childNodes));
  }
  return field;
}

function valueNode(v, t, options) {
  if (t === "reference" && options.openReference) {
    const p = pathOfName(v.referenceValue);
    return h("a", { href: "#", class: "value v-reference", onclick: (e) => { e.preventDefault(); options.openReference(p); } }, p);
  }
  return h("span", { class: `value v-${t}` }, scalarText(v));
}

// MARK: Editor

/** A type-aware editor for one value: a type selector and inputs that fit the type
 * (nested rows for maps and arrays). `read()` returns the encoded value or throws an Error
 * naming what is wrong. `database` resolves reference paths. */
export function valueEditor(initial, database) {
  const wrap = h("div", { class: "editor-value" });
  const select = h("select", { class: "type-select", "aria-label": "type" }, TYPES.map((t) => h("option", { value: t }, t)));
  let current = { read: () => ({ nullValue: null }) };
  const build = (type, value) => {
    wrap.replaceChildren(select);
    current = inputsFor(type, value, database);
    wrap.append(...current.nodes);
  };
  const start = initial ? typeOf(initial) : "string";
  select.value = TYPES.includes(start) ? start : "string";
  select.addEventListener("change", () => build(select.value, undefined));
  build(select.value, initial);
  return { element: wrap, read: () => current.read(), select };
}

function inputsFor(type, v, database) {
  switch (type) {
    case "string": {
      const input = h("textarea", { class: "value-input", rows: 1 });
      input.value = v?.stringValue ?? "";
      return { nodes: [input], read: () => ({ stringValue: input.value }) };
    }
    case "integer": {
      const input = h("input", { class: "value-input num", inputmode: "numeric", value: v?.integerValue ?? "0" });
      return { nodes: [input], read: () => {
        const s = input.value.trim();
        if (!/^-?\d+$/.test(s)) throw new Error(`"${s}" is not an integer.`);
        const n = BigInt(s);
        if (n > 9223372036854775807n || n < -9223372036854775808n) throw new Error(`${s} is outside the 64-bit integer range.`);
        return { integerValue: n.toString() };
      } };
    }
    case "double": {
      const input = h("input", { class: "value-input num", value: v ? String(v.doubleValue) : "0.0" });
      return { nodes: [input], read: () => {
        const s = input.value.trim();
        if (["NaN", "Infinity", "-Infinity"].includes(s)) return { doubleValue: s };
        const d = Number(s);
        if (s === "" || Number.isNaN(d)) throw new Error(`"${s}" is not a number.`);
        return { doubleValue: d };
      } };
    }
    case "boolean": {
      const sel = h("select", { class: "value-input" }, h("option", { value: "true" }, "true"), h("option", { value: "false" }, "false"));
      sel.value = String(v?.booleanValue ?? true);
      return { nodes: [sel], read: () => ({ booleanValue: sel.value === "true" }) };
    }
    case "null":
      return { nodes: [h("span", { class: "muted" }, "null")], read: () => ({ nullValue: null }) };
    case "timestamp": {
      const input = h("input", { class: "value-input", size: 30, value: v?.timestampValue ?? new Date().toISOString() });
      return { nodes: [input], read: () => {
        const s = input.value.trim();
        if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$/.test(s)) throw new Error(`"${s}" is not an RFC 3339 time (2026-01-01T09:00:00Z).`);
        return { timestampValue: s };
      } };
    }
    case "geopoint": {
      const lat = h("input", { class: "value-input num", placeholder: "latitude", value: v?.geoPointValue?.latitude ?? 0 });
      const lng = h("input", { class: "value-input num", placeholder: "longitude", value: v?.geoPointValue?.longitude ?? 0 });
      return { nodes: [lat, lng], read: () => {
        const a = Number(lat.value), b = Number(lng.value);
        if (Number.isNaN(a) || a < -90 || a > 90) throw new Error("Latitude must be a number in [-90, 90].");
        if (Number.isNaN(b) || b < -180 || b > 180) throw new Error("Longitude must be a number in [-180, 180].");
        return { geoPointValue: { latitude: a, longitude: b } };
      } };
    }
    case "reference": {
      const input = h("input", { class: "value-input", size: 30, placeholder: "collection/document", value: v ? pathOfName(v.referenceValue) : "" });
      return { nodes: [input], read: () => {
        const p = input.value.trim().replace(/^\/+|\/+$/g, "");
        const parts = p.split("/");
        if (!p || parts.length % 2 !== 0 || parts.includes("")) throw new Error(`"${p}" is not a document path (collection/document…).`);
        return { referenceValue: `${database}/documents/${p}` };
      } };
    }
    case "bytes": {
      const input = h("input", { class: "value-input", size: 30, placeholder: "base64", value: v?.bytesValue ?? "" });
      return { nodes: [input], read: () => {
        const s = input.value.trim();
        try { atob(s); } catch { throw new Error(`"${s}" is not base64.`); }
        return { bytesValue: s };
      } };
    }
    case "vector": {
      const values = v ? (v.mapValue.fields.value.arrayValue.values || []).map((x) => x.doubleValue ?? x.integerValue) : [];
      const input = h("input", { class: "value-input", size: 30, placeholder: "1.0, 2.5, 3", value: values.join(", ") });
      return { nodes: [input], read: () => {
        const parts = input.value.split(",").map((s) => s.trim()).filter(Boolean);
        const nums = parts.map(Number);
        if (!nums.length || nums.some(Number.isNaN)) throw new Error("A vector is a comma-separated list of numbers.");
        return { mapValue: { fields: { __type__: { stringValue: "__vector__" }, value: { arrayValue: { values: nums.map((d) => ({ doubleValue: d })) } } } } };
      } };
    }
    case "map": {
      const rows = mapRows(v?.mapValue?.fields || {}, database);
      return { nodes: [rows.element], read: () => ({ mapValue: { fields: rows.read() } }) };
    }
    case "array": {
      const rows = arrayRows(v?.arrayValue?.values || [], database);
      return { nodes: [rows.element], read: () => ({ arrayValue: { values: rows.read() } }) };
    }
  }
  throw new Error(`unknown type ${type}`);
}

/** Editable name/value rows (a map, or a new document's fields). */
export function mapRows(fields, database) {
  const list = h("div", { class: "editor" });
  const rows = [];
  const add = (name, value) => {
    const nameInput = h("input", { class: "name", placeholder: "field", value: name ?? "" });
    const editor = valueEditor(value, database);
    const row = h("div", { class: "editor-row" }, nameInput, editor.element,
      h("button", { type: "button", class: "icon", title: "Remove", onclick: () => { row.remove(); rows.splice(rows.indexOf(entry), 1); } }, "✕"));
    const entry = { nameInput, editor };
    rows.push(entry);
    list.insertBefore(row, addButton);
  };
  const addButton = h("button", { type: "button", class: "add-field", onclick: () => add() }, "+ field");
  list.append(addButton);
  for (const [k, v] of Object.entries(fields)) add(k, v);
  const element = h("div", { class: "nested" }, list);
  return {
    element, add,
    read: () => {
      const out = {};
      for (const { nameInput, editor } of rows) {
        const name = nameInput.value;
        if (!name) throw new Error("Every field needs a name.");
        if (name in out) throw new Error(`Field "${name}" appears twice.`);
        out[name] = editor.read();
      }
      return out;
    },
  };
}

function arrayRows(values, database) {
  const list = h("div", { class: "editor" });
  const rows = [];
  const add = (value) => {
    const editor = valueEditor(value, database);
    const row = h("div", { class: "editor-row" }, editor.element,
      h("button", { type: "button", class: "icon", title: "Remove", onclick: () => { row.remove(); rows.splice(rows.indexOf(editor), 1); } }, "✕"));
    rows.push(editor);
    list.insertBefore(row, addButton);
  };
  const addButton = h("button", { type: "button", onclick: () => add() }, "+ element");
  list.append(addButton);
  for (const v of values) add(v);
  return { element: h("div", { class: "nested" }, list), read: () => rows.map((e) => e.read()) };
}

// MARK: Changing one field inside a document

/** The encoded value at `path` (keys and indexes) in `fields`, or undefined. */
export function valueAt(fields, path) {
  let v = { mapValue: { fields } };
  for (const k of path) {
    const t = typeOf(v);
    if (t === "map") v = (v.mapValue.fields || {})[k];
    else if (t === "array") v = (v.arrayValue.values || [])[k];
    else return undefined;
    if (v === undefined) return undefined;
  }
  return v;
}

/** The PATCH body that sets (or, with `value` undefined, deletes) the field at `path`.
 * The mask is the longest prefix of map keys: an element inside an array is written by
 * replacing the array that holds it, since a field path cannot name an array element. */
export function patchFor(fields, path, value) {
  const firstIndex = path.findIndex((k) => typeof k === "number");
  const maskPath = firstIndex < 0 ? path : path.slice(0, firstIndex);
  let written;
  if (firstIndex < 0) {
    written = value;
  } else {
    const container = structuredClone(valueAt(fields, maskPath));
    const rest = path.slice(firstIndex);
    let parent = container;
    for (const k of rest.slice(0, -1)) parent = typeOf(parent) === "array" ? parent.arrayValue.values[k] : parent.mapValue.fields[k];
    const last = rest[rest.length - 1];
    if (typeOf(parent) === "array") {
      if (value === undefined) parent.arrayValue.values.splice(last, 1); else parent.arrayValue.values[last] = value;
    } else if (value === undefined) delete parent.mapValue.fields[last]; else parent.mapValue.fields[last] = value;
    written = container;
  }
  const body = { fields: {}, mask: [maskPath.map(String)] };
  if (written !== undefined) {
    let target = body.fields;
    maskPath.forEach((k, i) => {
      if (i === maskPath.length - 1) target[k] = written;
      else { target[k] = { mapValue: { fields: {} } }; target = target[k].mapValue.fields; }
    });
  }
  return body;
}
