// The console's calls to its server, the live event stream, and small shared helpers.

/** Calls the console API; resolves with the JSON body, rejects with an Error carrying the
 * server's message. Requests that change anything carry X-Hearth-Console (the server
 * refuses them otherwise, so no other site can drive the console). */
export async function call(method, url, body) {
  const options = { method, headers: {} };
  if (method !== "GET") options.headers["X-Hearth-Console"] = "1";
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(url, options);
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : {}; } catch { /* a plain-text answer */ }
  if (!response.ok) {
    const error = new Error(json?.error?.message || text || `${response.status} ${response.statusText}`);
    error.status = json?.error?.status || String(response.status);
    throw error;
  }
  return json;
}

/** A URL with query parameters (undefined and null ones left out). */
export function url(path, params = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) q.set(k, v);
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

/** The emulator endpoint for a database, a path under its documents, or a verb. */
export function emulatorPath(database, path = "") {
  const [, project, , db] = database.split("/");
  const segments = path ? "/" + path.split("/").map(encodeURIComponent).join("/") : "";
  return `/emulator/v1/projects/${encodeURIComponent(project)}/databases/${encodeURIComponent(db)}/documents${segments}`;
}

/** Live events: `on("request", fn)` etc.; the stream reconnects by itself. */
const listeners = new Map();
export function on(event, fn) {
  if (!listeners.has(event)) listeners.set(event, new Set());
  listeners.get(event).add(fn);
}
function emit(event, data) {
  for (const fn of listeners.get(event) || []) {
    try { fn(data); } catch (e) { console.error(e); }
  }
}

export function connectEvents() {
  const live = document.getElementById("live");
  const source = new EventSource("/api/events");
  source.addEventListener("open", () => { live.className = "live on"; live.textContent = "live"; emit("connected"); });
  source.addEventListener("error", () => { live.className = "live off"; live.textContent = "reconnecting"; });
  for (const name of ["request", "changes", "databases", "streams"]) {
    source.addEventListener(name, (e) => emit(name, JSON.parse(e.data)));
  }
  return source;
}

/** `h("a", {href: "#", onclick}, "text", child)`: a DOM element. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k in el && typeof v !== "string") el[k] = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** Shows a short message at the bottom of the page. */
let toastTimer;
export function toast(message, isError = false) {
  const el = document.getElementById("toast");
  el.textContent = message;
  el.className = isError ? "error" : "";
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.hidden = true; }, isError ? 7000 : 2500);
}

/** Runs an async action, reporting its failure as a toast. */
export async function attempt(action, success) {
  try {
    const result = await action();
    if (success) toast(success);
    return result;
  } catch (e) {
    toast(e.message, true);
    return undefined;
  }
}

/** Calls `fn` once, `ms` after the last of a burst of calls. */
export function debounce(fn, ms) {
  let timer;
  return (...args) => { clearTimeout(timer); timer = setTimeout(() => fn(...args), ms); };
}

/** Opens a modal dialog with `body` and resolves with true (OK) or false (Cancel). */
export function dialog(title, body, okLabel = "Save", validate = () => true) {
  return new Promise((resolve) => {
    const error = h("div", { class: "error" });
    const ok = h("button", { class: "primary", type: "submit", value: "ok" }, okLabel);
    const d = h("dialog", {},
      h("form", { method: "dialog" },
        h("h2", {}, title),
        h("div", { class: "body" }, body, error),
        h("div", { class: "buttons" }, h("button", { type: "button", onclick: () => d.close("cancel") }, "Cancel"), ok)));
    d.querySelector("form").addEventListener("submit", (e) => {
      try {
        if (validate() === false) { e.preventDefault(); return; }
      } catch (err) {
        e.preventDefault();
        error.textContent = err.message;
      }
    });
    d.addEventListener("close", () => { d.remove(); resolve(d.returnValue === "ok"); });
    document.body.append(d);
    d.showModal();
  });
}

/** The header's clock: the emulator's time, and whether it is set by hand. */
export function showClock(clock) {
  const el = document.getElementById("clock");
  el.textContent = `${clock.manual ? "clock stopped at " : ""}${clock.now.replace("T", " ").replace(/\.\d+Z$/, "Z")}`;
  el.title = clock.manual ? "The clock is set by hand (Database tab)" : "The emulator's clock (system time)";
}
