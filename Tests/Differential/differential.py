#!/usr/bin/env python3
"""The differential corpus: short request sequences with the answers the official Firestore
emulator gave, replayed against `hearth serve`.

    differential.py record HOST --log FILE [--only WORD]...   # official emulator -> recorded/*.json
    differential.py replay HOST --log FILE [--only WORD]...   # hearth serve vs recorded/*.json
    ... --feed HOST:WSPORT                                    # also the Requests feed's cases

Cases of a module with FEED = True (cases/request_feed.py) read the Emulator UI's Requests feed,
the WebSocket of the server's --websocket_port (feed_steps.py); they run only with --feed and
are skipped, with a note, without it.

Cases are written in cases/*.py (one module per area, each a list CASES built with the
helpers of cases/steps.py). `record` runs every case against the server at HOST and writes
recorded/<module>.json: each case's steps with the answers as they came (nothing normalised).
`replay` runs the recorded steps against HOST, normalises both answers the same way (times,
transaction ids, tokens, generated ids: see normalise()) and compares status, code, body,
stream messages in order and error messages. A mismatch fails the run unless
known-differences.json lists the case (with the answer Hearth gives instead, the reason
production differs from the emulator and the evidence). A listed case that no longer
differs fails too, so the list stays true.

--log names the server's log file: debug() output of the security rules is read from it (the
emulator prints each value in protobuf text format followed by an empty line).
REST, rules and emulator-endpoint cases need only the standard library; gRPC cases need
grpcio and google-cloud-firestore (for the official messages) and are skipped without them.

--functions PORT starts a stand-in Cloud Functions emulator on 127.0.0.1:PORT (functions.py:
it answers 200 and keeps what it was sent); an `events` step answers with the trigger events
it received since the last one. Modules that need it (NEEDS_FUNCTIONS = True: cases/triggers.py)
are skipped without it; the server must already deliver there (the official emulator's
--functions_emulator, Hearth's PUT /emulator/v1/triggers:config).
"""
import argparse
import hashlib
import importlib
import json
import os
import re
import socket
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cases.steps import project_for  # noqa: E402
import functions  # noqa: E402


# --- HTTP/1.1 over a raw socket (paths, headers and bodies go out exactly as written) -----

def http(host, method, path, body=None, headers=None, timeout=5.0):
    """One request on a fresh connection. Returns {"status", "headers", "body"} or
    {"timeout": True} when no answer came within `timeout` seconds."""
    h, p = host.rsplit(":", 1)
    if isinstance(body, (dict, list)):
        data = json.dumps(body).encode()
    elif isinstance(body, str):
        data = body.encode()
    else:
        data = body or b""
    hdrs = {"Host": host}
    if body is not None:
        hdrs["Content-Type"] = "application/json"
    hdrs.update(headers or {})
    if body is not None or method in ("POST", "PUT", "PATCH"):
        hdrs["Content-Length"] = str(len(data))
    hdrs = {k: v for k, v in hdrs.items() if v is not None}
    head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in hdrs.items()) + "\r\n"
    s = socket.create_connection((h.strip("[]"), int(p)), timeout=timeout)
    try:
        s.sendall(head.encode("utf-8", "surrogateescape") + data)
        buf = b""
        deadline = time.time() + timeout
        while b"\r\n\r\n" not in buf:
            chunk = _recv(s, deadline)
            if chunk is None:
                return {"timeout": True}
            if not chunk:
                return {"closed": True}
            buf += chunk
        head_bytes, rest = buf.split(b"\r\n\r\n", 1)
        lines = head_bytes.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ")[1])
        rh = {}
        for line in lines[1:]:
            k, _, v = line.partition(":")
            rh.setdefault(k.strip().lower(), []).append(v.strip())
        if status == 100:  # interim answer: read the real one
            return _reparse(s, rest, deadline)
        return _body(s, status, rh, rest, deadline, method)
    except (ConnectionError, socket.timeout):
        return {"closed": True}
    finally:
        s.close()


def _recv(s, deadline):
    left = deadline - time.time()
    if left <= 0:
        return None
    s.settimeout(left)
    try:
        return s.recv(65536)
    except socket.timeout:
        return None


def _reparse(s, buf, deadline):
    while b"\r\n\r\n" not in buf:
        chunk = _recv(s, deadline)
        if not chunk:
            return {"timeout": True}
        buf += chunk
    head_bytes, rest = buf.split(b"\r\n\r\n", 1)
    lines = head_bytes.decode("latin-1").split("\r\n")
    rh = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        rh.setdefault(k.strip().lower(), []).append(v.strip())
    return _body(s, int(lines[0].split(" ")[1]), rh, rest, deadline, "")


def _body(s, status, rh, buf, deadline, method):
    if method == "HEAD" or status in (204, 304):
        body = b""
    elif "content-length" in rh:
        n = int(rh["content-length"][0])
        while len(buf) < n:
            chunk = _recv(s, deadline)
            if not chunk:
                return {"timeout": True}
            buf += chunk
        body = buf[:n]
    elif "chunked" in ",".join(rh.get("transfer-encoding", [])).lower():
        body = b""
        while True:
            while b"\r\n" not in buf:
                chunk = _recv(s, deadline)
                if not chunk:
                    return {"timeout": True}
                buf += chunk
            size_line, buf = buf.split(b"\r\n", 1)
            n = int(size_line.split(b";")[0], 16)
            while len(buf) < n + 2:
                chunk = _recv(s, deadline)
                if not chunk:
                    return {"timeout": True}
                buf += chunk
            body += buf[:n]
            buf = buf[n + 2:]
            if n == 0:
                break
    else:
        while True:
            chunk = _recv(s, deadline)
            if not chunk:
                break
            buf += chunk
        body = buf
    return {"status": status, "headers": rh, "body": body.decode("utf-8", "replace")}


# --- the server's log: debug() output ------------------------------------------------------

VALUE_LINE = re.compile(r"^[a-z_]+_value(: .*| \{)$")


class LogTail:
    """Reads what a server wrote to its log since the last call."""

    def __init__(self, path):
        self.path = path
        self.offset = os.path.getsize(path) if path and os.path.exists(path) else 0

    def read(self, settle):
        """New lines, once the file has stopped growing for `settle` seconds."""
        if not self.path:
            return []
        size, still = -1, 0.0
        while still < settle:
            now = os.path.getsize(self.path)
            if now == size:
                still += 0.05
            else:
                size, still = now, 0.0
            time.sleep(0.05)
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            data = f.read(size - self.offset)
        self.offset = size
        return data.decode("utf-8", "replace").splitlines()


def debug_values(lines):
    """The debug() values in log lines: each a protobuf text block that ends at an empty line.
    The gcloud wrapper's `[firestore] ` prefix is dropped."""
    out, current = [], None
    for line in lines:
        if line.startswith("[firestore] "):
            line = line[len("[firestore] "):]
        elif line == "[firestore]":
            line = ""
        if current is None:
            if VALUE_LINE.match(line):
                current = [line]
                if not line.endswith("{"):
                    out.append(line)
                    current = None
        elif line == "":
            out.append("\n".join(current))
            current = None
        else:
            current.append(line)
            if line == "}" and current and not current[0].startswith(" "):
                out.append("\n".join(current))
                current = None
    return out


# --- running a case --------------------------------------------------------------------------

class Context:
    def __init__(self, host, log, settle, recorder=None, feed=None, replaying=False):
        self.host, self.log, self.settle = host, log, settle
        self.recorder = recorder
        self.feed_host, self.replaying = feed, replaying
        self.vars = {}
        self.streams = {}
        self._grpc = None
        self._feed = None
        self.project = None

    def feed(self):
        """The feed connection the cases share (opened before a feed case's first request)."""
        if self._feed is None or self._feed.closed:
            import feed_steps
            self._feed = feed_steps.FeedClient(self.feed_host)
            first = self._feed.message(5.0)
            if first is None or not first.startswith("["):
                raise ConnectionError("the feed did not send its array of past evaluations first")
        return self._feed

    def close_feed(self):
        if self._feed is not None:
            self._feed.close()
            self._feed = None

    def grpc(self):
        if self._grpc is None:
            import grpc_steps
            self._grpc = grpc_steps.Client(self.host)
        return self._grpc

    def close(self):
        for stream in self.streams.values():
            stream.cancel()
        self.streams.clear()


def substitute(value, vars):
    if isinstance(value, str):
        for k, v in vars.items():
            value = value.replace("${" + k + "}", v)
        return value
    if isinstance(value, list):
        return [substitute(x, vars) for x in value]
    if isinstance(value, dict):
        return {substitute(k, vars): substitute(x, vars) for k, x in value.items()}
    return value


def pick(answer, path):
    """The value at a dotted path of an answer: of its parsed body for REST, of the answer
    itself for gRPC (`messages.0.commitTime`); a number indexes a list (-1: the last)."""
    v = answer["json"] if "json" in answer else answer
    for part in path.split("."):
        if isinstance(v, list):
            try:
                v = v[int(part)]
            except (ValueError, IndexError):
                return None
        elif isinstance(v, dict):
            v = v.get(part)
        else:
            return None
    return v


def generate(value):
    """Expands {"$repeat": text, "times": n} (how a case writes a large value) into the text."""
    if isinstance(value, dict):
        if "$repeat" in value:
            return value["$repeat"] * value["times"]
        return {k: generate(x) for k, x in value.items()}
    if isinstance(value, list):
        return [generate(x) for x in value]
    return value


def digest_long(value):
    """Answers keep strings over 2,000 characters as their length and SHA-1 (the corpus stays
    small; the comparison is as strict)."""
    if isinstance(value, str) and len(value) > 2000:
        return f"<{len(value)} characters, sha1 {hashlib.sha1(value.encode('utf-8', 'surrogatepass')).hexdigest()}>"
    if isinstance(value, dict):
        return {k: digest_long(x) for k, x in value.items()}
    if isinstance(value, list):
        return [digest_long(x) for x in value]
    return value


def run_step(ctx, step):
    answer = digest_long(execute(ctx, step))
    for name, path in step.get("save", {}).items():
        v = pick(answer, path)
        ctx.vars[name] = v if isinstance(v, str) else json.dumps(v)
    return answer


def execute(ctx, step):
    step = generate(substitute(step, ctx.vars))
    tail = LogTail(ctx.log) if step.get("debug") else None
    kind = step["kind"]
    if kind == "http":
        answer = http(ctx.host, step["method"], step["path"], step.get("body"), step.get("headers"),
                      timeout=step.get("timeout", 5.0))
        if "body" in answer and answer["body"][:1] in ("{", "["):
            try:
                answer["json"] = json.loads(answer.pop("body"))
            except ValueError:
                pass
    elif kind == "grpc":
        answer = ctx.grpc().unary(step)
    elif kind == "open":
        ctx.streams[step["stream"]] = ctx.grpc().open(step)
        answer = {}
    elif kind == "send":
        ctx.streams[step["stream"]].send(step["message"])
        answer = {}
    elif kind == "recv":
        answer = ctx.streams[step["stream"]].receive(step.get("quiet", 0.4), step.get("count"))
    elif kind == "halfclose":
        answer = ctx.streams.pop(step["stream"]).finish(step.get("quiet", 0.4))
    elif kind == "sleep":
        time.sleep(step["seconds"])
        answer = {}
    elif kind == "events":
        answer = {"events": ctx.recorder.take(step.get("quiet", 0.6), step.get("wait", 3.0), step.get("count"))}
    elif kind == "feed":
        import feed_steps
        # Replaying, the recorded count is awaited (then a short quiet tail): no fixed sleep.
        answer = {"evaluations": feed_steps.read_feed(ctx.feed(), ctx.project, step.get("quiet", 0.8),
                                                       step.get("expect") if ctx.replaying else None)}
    elif kind == "feed_initial":
        import feed_steps
        answer = feed_steps.initial(ctx.feed_host, ctx.project)
    else:
        raise ValueError(f"unknown step kind {kind}")
    if tail:
        answer["debug"] = debug_values(tail.read(ctx.settle))
    return answer


def run_case(ctx, case):
    """The case's answers, from a clean start: its project's databases are emptied first
    (a server may have run the corpus before)."""
    ctx.vars = {}
    project = project_for(case["name"])
    ctx.project = project
    if is_feed_case(case):
        ctx.feed()
    for database in ("(default)", "other"):
        http(ctx.host, "DELETE", f"/emulator/v1/projects/{project}/databases/{database}/documents")
    if ctx.recorder:
        ctx.recorder.take(0.05, 0.05)
    try:
        return [run_step(ctx, s) for s in case["steps"]]
    finally:
        ctx.close()


# --- normalising and comparing -------------------------------------------------------------

TIME_KEYS = {"updateTime", "createTime", "commitTime"}
OPAQUE_KEYS = {"readTime": "<readTime>", "resumeToken": "<resumeToken>", "streamToken": "<streamToken>",
               "streamId": "<streamId>", "nextPageToken": "<pageToken>", "expireTime": "<expireTime>"}


class Normaliser:
    """What must differ between two correct servers, replaced consistently within a case:
    commit times become t1, t2, … in order of first appearance (so "the same time" is still
    checked), transaction ids tx1, tx2, …; read times and tokens become placeholders."""

    def __init__(self):
        self.times, self.txs, self.ids = {}, {}, {}
        # Set for a step with `read_times`: its read times are compared as ordinals in the
        # commit times' table (a read time that must be a given commit's time).
        self.read_times = False
        self.feed_times = {}
        self.streams = {}

    def ordinal(self, table, prefix, v):
        if v not in table:
            table[v] = f"<{prefix}{len(table) + 1}>"
        return table[v]

    def value(self, v, key=None, generated=()):
        if isinstance(v, dict):
            return {k: self.value(x, k, generated) for k, x in v.items()}
        if isinstance(v, list):
            return [self.value(x, key, generated) for x in v]
        if isinstance(v, str):
            if key in TIME_KEYS or (key == "readTime" and self.read_times):
                return self.ordinal(self.times, "t", v)
            if key in OPAQUE_KEYS:
                return OPAQUE_KEYS[key]
            if key in ("transaction", "newTransaction") or key == "transactions":
                return self.ordinal(self.txs, "tx", v)
            for prefix in generated:
                if v.startswith(prefix) and re.fullmatch(r"[A-Za-z0-9]{20}", v[len(prefix):]):
                    return prefix + self.ordinal(self.ids, "id", v[len(prefix):])
        return v

    def evaluation(self, e):
        """One evaluation of the Requests feed: request ids, rules release keys and times become
        ordinals; `time` values (the evaluation's and the request's) are compared as ordinals
        too, so "the same time" is still checked."""
        def walk(v, key=None):
            if isinstance(v, dict):
                return {k: walk(x, k) for k, x in v.items()}
            if isinstance(v, list):
                return [walk(x, key) for x in v]
            if isinstance(v, str):
                if key == "requestId":
                    return self.ordinal(self.ids, "request", v)
                if key in ("rulesReleaseKey", "rulesReleaseName"):
                    return re.sub(r"/releases/.*", "/releases/<release>", v)
                if key in ("time", "timestampValue") and re.fullmatch(r"\d{4}-\d\d-\d\dT[\d:.]+Z", v):
                    # A table of its own: a commit time that happens to fall on a whole
                    # millisecond would otherwise equal a request's millisecond time.
                    return self.ordinal(self.feed_times, "ft", v)
            return v
        return walk(e)

    def answer(self, step, a):
        self.read_times = bool(step.get("read_times"))
        if step.get("kind") == "feed":
            return {"evaluations": [self.evaluation(e) for e in a.get("evaluations", [])]}
        if step.get("kind") == "feed_initial":
            if "initial" in a:
                return {"initial": [self.evaluation(e) for e in a["initial"]]}
            return a
        # A stream's messages are compared in order, but not how they fell into the reads
        # in between (that is timing): each read adds to the stream's sequence, which is
        # compared when the stream is closed.
        if step.get("kind") == "events":
            events = functions.normalise(a["events"], self)
            return {"events": functions.server_times(events) if step.get("server_times") else events}
        if step.get("kind") in ("recv", "halfclose"):
            held = self.streams.setdefault(step["stream"], [])
            held += [self.value(m) for m in a.get("messages", [])]
            if step["kind"] == "recv" and "code" not in a:
                return {}
            self.streams.pop(step["stream"])
            return {"messages": held, **{k: a[k] for k in ("code", "message") if k in a}}
        out = {}
        if a.get("timeout"):
            return {"timeout": True}
        if a.get("closed"):
            return {"closed": True}
        generated = step.get("generated", ())
        if "status" in a:
            out["status"] = a["status"]
        if "headers" in a:
            ct = a["headers"].get("content-type", [""])[0].lower().replace(" ", "")
            out["content-type"] = ct.replace(";charset=utf-8", "")
            for h in step.get("compare_headers", ()):
                out[h] = a["headers"].get(h.lower())
        if "json" in a:
            out["body"] = self.value(a["json"], generated=generated)
            if step.get("server_times"):
                out["body"] = functions.server_times(out["body"])
        elif "body" in a:
            out["body"] = a["body"]
        for k in ("code", "message", "messages", "debug", "trailers"):
            if k in a:
                out[k] = self.value(a[k], generated=generated)
        return out


def message_of(n):
    """An answer's error message, wherever the protocol put it."""
    body = n.get("body")
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return body["error"].get("message")
    return n.get("message")


def without_message(n):
    """The answer with its error texts taken out: the error's message, a gRPC status
    message, and batchWrite's per-write status messages."""
    n = json.loads(json.dumps(n))
    body = n.get("body")
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        body["error"].pop("message", None)
    for holder in [body] + (n.get("messages") or []):
        if isinstance(holder, dict) and isinstance(holder.get("status"), list):
            for status in holder["status"]:
                if isinstance(status, dict):
                    status.pop("message", None)
    n.pop("message", None)
    return n


def compare(case, recorded, actual):
    """None when every step's answers agree; else the first differing step (its index and
    both normalised answers) and whether every difference in the case is in a message."""
    official_norm, hearth_norm = Normaliser(), Normaliser()
    first, message_only = None, True
    hearth_answers = []
    for i, (step, want, got) in enumerate(zip(case["steps"], recorded, actual)):
        w = official_norm.answer(step, want)
        g = hearth_norm.answer(step, got)
        hearth_answers.append(g)
        if w != g:
            if first is None:
                first = {"step": i, "official": w, "hearth": g}
            message_only = message_only and without_message(w) == without_message(g)
    if first is not None:
        first["message_only"] = message_only
        first["hearth_answers"] = hearth_answers
    return first


# --- record / replay -------------------------------------------------------------------------

def load_modules(only):
    names = sorted(f[:-3] for f in os.listdir(os.path.join(HERE, "cases"))
                   if f.endswith(".py") and not f.startswith("_") and f != "steps.py")
    return [n for n in names if not only or any(o in n for o in only)]


def needs_functions(module):
    return getattr(module, "NEEDS_FUNCTIONS", False)


def module_needs_functions(name):
    return needs_functions(importlib.import_module(f"cases.{name}"))
def is_feed_case(case):
    return any(s["kind"] in ("feed", "feed_initial") for s in case["steps"])


def needs_grpc(case):
    return any(s["kind"] in ("grpc", "open") for s in case["steps"])


def grpc_available():
    try:
        import grpc_steps  # noqa: F401
        return True
    except ImportError:
        return False


def record(args):
    total = 0
    recorder = functions.Recorder(args.functions) if args.functions else None
    for name in load_modules(args.only):
        module = importlib.import_module(f"cases.{name}")
        if needs_functions(module) != bool(recorder):
            print(f"{name}: not recorded {'(needs --functions)' if recorder is None else '(recorded without --functions)'}")
            continue
        cases = module.CASES
        names = [c["name"] for c in cases]
        dupes = {n for n in names if names.count(n) > 1}
        if dupes:
            sys.exit(f"{name}: duplicate case names {sorted(dupes)}")
        if getattr(module, "FEED", False) and not args.feed:
            print(f"{name}: skipped (its cases read the Requests feed: give --feed HOST:WSPORT)")
            continue
        ctx = Context(args.host, args.log, args.settle, recorder, feed=args.feed)
        out = []
        for case in cases:
            answers = run_case(ctx, case)
            for step, answer in zip(case["steps"], answers):
                if step["kind"] == "feed":
                    step["expect"] = len(answer["evaluations"])
            out.append({"name": case["name"], "steps": case["steps"], "answers": answers})
        path = os.path.join(HERE, "recorded", f"{name}.json")
        with open(path, "w") as f:
            json.dump({"module": name, "cases": out}, f, indent=1, ensure_ascii=False, sort_keys=False)
            f.write("\n")
        ctx.close_feed()
        print(f"recorded {len(out)} cases into recorded/{name}.json")
        total += len(out)
    print(f"recorded {total} cases")


def load_known():
    """Case name -> (entry, what Hearth must answer instead at the first differing step, for
    an `answer` entry). Entries group cases that differ for one reason:
    {"id", "kind": "message" | "answer", "cases": [names] or {name: {"step", "hearth", "then"?}},
     "reason", "evidence"}; a `message` entry accepts only differences in error messages. An
    `answer` case's "then" ({step: answer}) pins Hearth's answers at later steps too (a
    stream's messages are only seen when it ends)."""
    with open(os.path.join(HERE, "known-differences.json")) as f:
        entries = json.load(f)["differences"]
    known = {}
    for e in entries:
        for k in ("id", "kind", "cases", "reason", "evidence"):
            if k not in e:
                sys.exit(f"known-differences.json: an entry lacks '{k}': {json.dumps(e)[:200]}")
        cases = e["cases"] if isinstance(e["cases"], dict) else {n: None for n in e["cases"]}
        for name, expected in cases.items():
            if name in known:
                sys.exit(f"known-differences.json lists {name} twice")
            known[name] = (e, expected)
    return known


def replay(args):
    known = load_known()
    have_grpc = grpc_available()
    recorder = functions.Recorder(args.functions) if args.functions else None
    seen, failures, skipped, counts = set(), [], 0, {}
    unreplayed = set()  # cases of modules skipped for want of --functions
    feed_skipped = 0
    known_agree = 0
    files = sorted(f for f in os.listdir(os.path.join(HERE, "recorded")) if f.endswith(".json"))
    for file in files:
        if args.only and not any(o in file for o in args.only):
            continue
        with open(os.path.join(HERE, "recorded", file)) as f:
            cases = json.load(f)["cases"]
        if module_needs_functions(file[:-5]) != bool(recorder):
            unreplayed.update(c["name"] for c in cases)
            print(f"{file}: not replayed ({'needs --functions: Tests/Compat/triggers.sh' if recorder is None else 'replayed without --functions'})")
            continue
        ctx = Context(args.host, args.log, args.settle, recorder, feed=args.feed, replaying=True)
        agree = 0
        for case in cases:
            if needs_grpc(case) and not have_grpc:
                skipped += 1
                continue
            if recorder:
                case = expect_event_counts(case)
            if is_feed_case(case) and not args.feed:
                feed_skipped += 1
                continue
            actual = run_case(ctx, case)
            diff = compare(case, case["answers"], actual)
            entry, expected = known.get(case["name"], (None, None))
            seen.add(case["name"])
            if diff is None and entry is None:
                agree += 1
                continue
            if diff is None:
                failures.append((case["name"], f"listed in known-differences.json ({entry['id']}) but now answers as the emulator did", None))
                continue
            if entry is None:
                failures.append((case["name"], "differs from the official emulator", diff))
                continue
            if entry["kind"] == "message" and diff["message_only"]:
                known_agree += 1
                continue
            if entry["kind"] == "answer" and expected is not None and expected.get("step") == diff["step"] \
                    and subset(expected["hearth"], diff["hearth"]) \
                    and all(subset(want, diff["hearth_answers"][int(i)]) for i, want in expected.get("then", {}).items()):
                # Hearth gives the answer the entry names instead; later steps are not compared.
                known_agree += 1
                continue
            failures.append((case["name"], f"differs beyond its known-differences entry ({entry['id']}, {entry['kind']})", diff))
        ctx.close_feed()
        ran = len(cases) - sum(1 for c in cases if is_feed_case(c) and not args.feed)
        if ran == 0:
            print(f"{file}: skipped (Requests feed cases: no --feed)")
            continue
        counts[file] = (agree, ran)
        print(f"{file}: {agree}/{ran} answer as the emulator did")
    if args.dump:
        with open(args.dump, "w") as f:
            json.dump([{"case": n, "why": w, **{k: v for k, v in (d or {}).items() if k != "hearth_answers"}}
                       for n, w, d in failures], f, indent=1, ensure_ascii=False)
    for name, why, diff in failures:
        if args.brief:
            print(f"MISMATCH {name} | {brief(diff) if diff else why}")
            continue
        print(f"\nMISMATCH {name}: {why}")
        if diff:
            print(f"  step {diff['step']}\n  official: {json.dumps(diff['official'], ensure_ascii=False)[:1500]}"
                  f"\n  hearth:   {json.dumps(diff['hearth'], ensure_ascii=False)[:1500]}")
    if not args.only:
        stale = [n for n in known if n not in seen and n not in unreplayed and not skipped and not feed_skipped]
        for n in stale:
            print(f"\nSTALE known-differences.json names {n}, which is not in the corpus")
            failures.append((n, "stale", None))
    total = sum(n for _, n in counts.values())
    print(f"\n{total} cases: {total - len(failures) - known_agree} answer as the official emulator did, "
          f"{known_agree} differ as known-differences.json says ({len(known)} listed), {len(failures)} mismatch"
          f"{f'; {skipped} gRPC cases skipped (no grpcio)' if skipped else ''}"
          f"{f'; {feed_skipped} Requests feed cases skipped (no --feed)' if feed_skipped else ''}")
    return 1 if failures else 0


def expect_event_counts(case):
    """The case with each `events` step told how many events the official emulator sent, so
    the replay stops waiting once they (and no more, within a short settle) have come."""
    steps = []
    for step, answer in zip(case["steps"], case["answers"]):
        if step["kind"] == "events":
            step = dict(step, count=len(answer.get("events", [])))
        steps.append(step)
    return dict(case, steps=steps)


def brief(diff):
    """One line: the step and the first place the two answers part."""
    def first(a, b, path=""):
        if type(a) is not type(b):
            return path, a, b
        if isinstance(a, dict):
            for k in list(a) + [k for k in b if k not in a]:
                if a.get(k) != b.get(k):
                    return first(a.get(k), b.get(k), f"{path}.{k}")
        if isinstance(a, list):
            if len(a) != len(b):
                return f"{path}[len]", len(a), len(b)
            for i, (x, y) in enumerate(zip(a, b)):
                if x != y:
                    return first(x, y, f"{path}[{i}]")
        return path, a, b
    path, o, h = first(diff["official"], diff["hearth"])
    cut = lambda v: json.dumps(v, ensure_ascii=False)[:160]
    return f"step {diff['step']} {path}: official {cut(o)} / hearth {cut(h)}"


def subset(want, got):
    """True when every key of `want` is in `got` with an equal value (recursively for dicts)."""
    if isinstance(want, dict) and isinstance(got, dict):
        return all(k in got and subset(v, got[k]) for k, v in want.items())
    return want == got


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mode", choices=["record", "replay"])
    p.add_argument("host")
    p.add_argument("--log", help="the server's log file (for debug() output)")
    p.add_argument("--only", action="append", help="only modules whose name contains this")
    p.add_argument("--brief", action="store_true", help="one line per mismatch")
    p.add_argument("--dump", help="write the mismatches to this JSON file")
    p.add_argument("--functions", type=int, metavar="PORT",
                   help="serve a recording stand-in Functions emulator on 127.0.0.1:PORT and run the modules that need it")
    p.add_argument("--feed", help="HOST:PORT of the server's Requests feed (its --websocket_port)")
    p.add_argument("--settle", type=float, default=None,
                   help="seconds the log must stay still before debug() output is read")
    args = p.parse_args()
    if args.settle is None:
        args.settle = 0.4 if args.mode == "record" else 0.1
    if args.mode == "record":
        record(args)
    else:
        sys.exit(replay(args))


if __name__ == "__main__":
    main()
