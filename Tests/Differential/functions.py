"""A stand-in Cloud Functions emulator for the trigger cases (cases/triggers.py) and the
trigger delivery check (Tests/Compat/triggers.sh): an HTTP server that answers every request
200 with an empty body and keeps what it was sent (method, path, headers, body), and the
normalisation that makes two servers' events comparable.

What the official emulator sends (recorded): 1st-gen triggers get a JSON body
`{"data": {"value", "oldValue", "updateMask"}, "context": {"eventId", "timestamp", "eventType",
"resource"}}`; 2nd-gen triggers a binary-mode CloudEvent: `ce-*` headers and, as the body,
the base64 text of a protobuf `google.events.cloud.firestore.v1.DocumentEventData`
(Content-Type application/protobuf; the Functions emulator base64-decodes such bodies).
"""
import base64
import datetime
import http.server
import json
import re
import threading
import time

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
SECONDS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
# Headers that depend on the HTTP client, not on the event (compared: Content-Type, every ce-*).
IGNORED_HEADERS = {"accept", "accept-encoding", "user-agent", "connection", "host", "content-length"}


class Recorder:
    """The stand-in: a threaded HTTP server on 127.0.0.1:port keeping every request."""

    def __init__(self, port, status=200):
        self.lock = threading.Lock()
        self.events = []
        self.status = status
        recorder = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def handle_any(self):
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n) if n else b""
                event = {"method": self.command, "path": self.path,
                         "headers": [[k.lower(), v] for k, v in self.headers.items()],
                         "body": body.decode("utf-8", "replace"), "received": time.time()}
                with recorder.lock:
                    recorder.events.append(event)
                self.send_response(recorder.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_POST = do_PUT = do_GET = handle_any

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def take(self, quiet, wait, count=None):
        """The events received so far, once none has arrived for `quiet` seconds (waiting at
        most `wait` seconds for the first, or until `count` have come)."""
        start = time.time()
        if count == 0:
            time.sleep(min(quiet, 0.3))
            wait = 0
        seen, still = -1, time.time()
        while True:
            with self.lock:
                n = len(self.events)
            now = time.time()
            if n != seen:
                seen, still = n, now
            if count is not None and n >= count and now - still >= min(quiet, 0.2):
                break
            if n and now - still >= quiet:
                break
            if not n and now - start >= wait:
                break
            if now - start >= wait + 10 * quiet + 5:
                break
            time.sleep(0.02)
        with self.lock:
            out, self.events = self.events, []
        for e in out:
            e.pop("received", None)
        return out

    def close(self):
        self.server.shutdown()


# --- google.events.cloud.firestore.v1.DocumentEventData, decoded -------------------------

def _varint(b, i):
    n = shift = 0
    while True:
        c = b[i]
        i += 1
        n |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return n, i


def _fields(b):
    """(field number, wire type, value) in order; length-delimited values as bytes."""
    i, out = 0, []
    while i < len(b):
        key, i = _varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = _varint(b, i)
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 2:
            n, i = _varint(b, i)
            v, i = b[i:i + n], i + n
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError(f"wire type {wt}")
        out.append((num, wt, v))
    return out


def _timestamp(b):
    seconds = nanos = 0
    for num, _, v in _fields(b):
        if num == 1:
            seconds = v
        elif num == 2:
            nanos = v
    text = datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    if nanos:
        frac = f"{nanos:09d}"
        frac = frac[:3] if frac[3:] == "000000" else frac[:6] if frac[6:] == "000" else frac
        text += "." + frac
    return text + "Z"


def _value(b):
    import struct
    out = {}
    for num, wt, v in _fields(b):
        if num == 11:
            out["nullValue"] = None
        elif num == 1:
            out["booleanValue"] = bool(v)
        elif num == 2:
            out["integerValue"] = str(v - (1 << 64) if v >= 1 << 63 else v)
        elif num == 3:
            d = struct.unpack("<d", v)[0]
            # As proto3 JSON writes them (NaN is not equal to itself in a comparison).
            out["doubleValue"] = "NaN" if d != d else "Infinity" if d == float("inf") else "-Infinity" if d == float("-inf") else d
        elif num == 10:
            out["timestampValue"] = _timestamp(v)
        elif num == 17:
            out["stringValue"] = v.decode("utf-8", "replace")
        elif num == 18:
            out["bytesValue"] = base64.b64encode(v).decode()
        elif num == 5:
            out["referenceValue"] = v.decode()
        elif num == 8:
            g = {}
            for n2, _, x in _fields(v):
                g["latitude" if n2 == 1 else "longitude"] = struct.unpack("<d", x)[0]
            out["geoPointValue"] = g
        elif num == 9:
            out["arrayValue"] = {"values": [_value(x) for n2, _, x in _fields(v) if n2 == 1]}
        elif num == 6:
            out["mapValue"] = {"fields": _map(v, 1)}
        else:
            out[f"field{num}"] = v.hex() if isinstance(v, bytes) else v
    return out


def _entry(entry):
    """A map<string, Value> entry: (key, value)."""
    k, val = "", {}
    for n2, _, x in _fields(entry):
        if n2 == 1:
            k = x.decode()
        elif n2 == 2:
            val = _value(x)
    return k, val


def _map(b, num):
    return dict(_entry(entry) for n, _, entry in _fields(b) if n == num)


def _document(b):
    out = {}
    for num, _, v in _fields(b):
        if num == 1:
            out["name"] = v.decode()
        elif num == 2:
            k, val = _entry(v)
            out.setdefault("fields", {})[k] = val
        elif num == 3:
            out["createTime"] = _timestamp(v)
        elif num == 4:
            out["updateTime"] = _timestamp(v)
        else:
            out[f"field{num}"] = v.hex() if isinstance(v, bytes) else v
    return out


def document_event_data(b):
    """DocumentEventData as a dict in the order the fields came: value (1), oldValue (2),
    updateMask (3, {"fieldPaths": [...]})."""
    out = {}
    for num, _, v in _fields(b):
        if num == 1:
            out["value"] = _document(v)
        elif num == 2:
            out["oldValue"] = _document(v)
        elif num == 3:
            out["updateMask"] = {"fieldPaths": [x.decode() for n2, _, x in _fields(v) if n2 == 1]}
        else:
            out[f"field{num}"] = v.hex() if isinstance(v, bytes) else v
    return out


# --- normalising ----------------------------------------------------------------------------

def _document_of(event):
    h = dict(event["headers"])
    if "ce-document" in h:
        return h["ce-document"]
    try:
        return json.loads(event["body"])["context"]["resource"]["name"]
    except (ValueError, KeyError, TypeError):
        return ""


def server_times(v):
    """Every timestampValue replaced by <server time>: for steps marked `server_times`, whose
    only timestamp values are REQUEST_TIME transforms' results — a clock reading, which the
    official emulator also keeps in milliseconds where Hearth keeps the commit time in
    microseconds (known-differences.json: server-time-precision)."""
    if isinstance(v, dict):
        return {k: "<server time>" if k == "timestampValue" and isinstance(x, str) else server_times(x) for k, x in v.items()}
    if isinstance(v, list):
        return [server_times(x) for x in v]
    return v


def normalise(events, norm):
    """Events in a comparable form. Only each document's events per trigger are ordered
    (a server may deliver different triggers, or different documents, concurrently), so
    events are sorted by trigger and document, keeping their order within. Event ids
    (UUIDs) become <uuid1>, <uuid2>, … (one event id shared by two triggers stays shared),
    ce-time (whole seconds) <seconds>; times go through the case's
    normaliser (`norm`), so an event's time still has to equal the commit time the write's
    answer showed."""
    ordered = sorted(events, key=lambda e: (e["path"], _document_of(e)))
    out = []
    for e in ordered:
        headers = {}
        for k, v in e["headers"]:
            if k in IGNORED_HEADERS:
                continue
            if k == "ce-id" and UUID.fullmatch(v):
                v = norm.ordinal(norm.ids, "uuid", v)
            elif k == "ce-time" and SECONDS.fullmatch(v):
                v = "<seconds>"
            headers[k] = v
        n = {"method": e["method"], "path": e["path"], "headers": headers,
             "header-order": [k for k, _ in e["headers"] if k.startswith("ce-")]}
        body = e["body"]
        ct = headers.get("content-type", "")
        if "json" in ct:
            try:
                parsed = json.loads(body)
            except ValueError:
                n["body"] = body
            else:
                n["body"] = _times(norm.value(parsed), norm)
                n["body-keys"] = _keys(parsed)
        elif "protobuf" in ct:
            try:
                n["body"] = norm.value(document_event_data(base64.b64decode(body, validate=True)))
                n["body-keys"] = list(n["body"])
            except (ValueError, IndexError) as err:
                n["body"] = {"undecodable": body, "error": str(err)}
        else:
            n["body"] = body
        out.append(n)
    return out


def _times(v, norm):
    """The context's `timestamp` (the commit time) through the time ordinals; event ids."""
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if k == "timestamp" and isinstance(x, str):
                out[k] = norm.ordinal(norm.times, "t", x)
            elif k == "eventId" and isinstance(x, str) and UUID.fullmatch(x):
                out[k] = norm.ordinal(norm.ids, "uuid", x)
            else:
                out[k] = _times(x, norm)
        return out
    if isinstance(v, list):
        return [_times(x, norm) for x in v]
    return v


def _keys(parsed):
    """The envelope's key order (data's and context's), which the maps' comparison ignores."""
    if not isinstance(parsed, dict):
        return None
    return {k: list(v) if isinstance(v, dict) else None for k, v in parsed.items()}
