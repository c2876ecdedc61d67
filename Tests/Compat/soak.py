"""A soak: `hearth serve --data-dir` under a mixed workload for a fixed time, sampling the
process's resident memory, descriptors, threads and version-history bytes, then checking
that every acknowledged write is there — before and after a restart from the data dir.

The workload, all at once:
  - REST writers as signed-in users (every request rules-checked), each overwriting its own
    200 documents in turn, with a rules-checked query and a read the rules deny (403, earned)
    now and then;
  - gRPC batch writers (the official Python client): three documents and an increment of the
    writer's counter per commit;
  - gRPC transactions with contention: three threads incrementing one document;
  - Write streams (gRPC bidirectional), re-opened every 200 writes;
  - Listen: a gRPC watch on a counter kept for the whole run, and query watches attached and
    detached over and over; WebChannel Listen sessions (long polling) opened, read and
    terminated over and over;
  - hostile clients in the background: a slowloris (request heads a byte at a time) and an
    HTTP/2 rapid-reset client; what the server does to them is not counted as an error.

Pass: no error beyond those the workload earns (the denied reads, the hostile clients'
refusals, transactions that gave up under contention — those neither count nor apply),
every acknowledged write readable with its last value, counters equal to the acknowledged
increments, and descriptors and threads back to their level before the load once it stops.
Memory's slope after warm-up is reported (and, with --max-rss-slope, bounded).

usage: soak.py HEARTH_BINARY --seconds N [--warmup N] [--interval S] [--csv F] [--png F]
Runs in the compat venv (google-cloud-firestore, grpcio); everything else is the standard
library.
"""
import argparse
import base64
import http.client
import json
import os
import random
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import soak_plot  # noqa: E402

PROJECT = "demo-soak"
DATABASE = f"projects/{PROJECT}/databases/(default)"
DOCS = f"{DATABASE}/documents"
REST_DOCS = f"/v1/projects/{PROJECT}/databases/(default)/documents"
RULES = """rules_version = '2';
service cloud.firestore {
  match /databases/{database}/documents {
    match /soak/{doc} {
      allow read: if request.auth != null;
      allow write: if request.auth != null && request.resource.data.owner == request.auth.uid;
    }
    match /private/{doc} { allow read, write: if false; }
  }
}
"""

args = None
stop = threading.Event()
lock = threading.Lock()
counts = {}            # kind -> operations acknowledged
earned = {}            # kind -> errors the workload earns
errors = []            # (kind, text): unexpected
last_value = {}        # document path -> last acknowledged "i"
counter_acks = {}      # counter document path -> acknowledged increments


def count(kind, n=1):
    with lock:
        counts[kind] = counts.get(kind, 0) + n


def earn(kind):
    with lock:
        earned[kind] = earned.get(kind, 0) + 1


def fail(kind, text):
    with lock:
        errors.append((kind, str(text)[:300]))
    if len(errors) <= 20:
        print(f"soak: ERROR {kind}: {str(text)[:300]}", flush=True)


def ack_value(path, i):
    with lock:
        last_value[path] = max(i, last_value.get(path, -1))


def ack_counter(path, n=1):
    with lock:
        counter_acks[path] = counter_acks.get(path, 0) + n


def token(uid):
    """An unsigned ID token, as the emulators accept."""
    def b64(obj):
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()
    now = int(time.time())
    return ".".join([b64({"alg": "none", "typ": "JWT"}),
                     b64({"sub": uid, "user_id": uid, "aud": PROJECT, "iss": f"https://securetoken.google.com/{PROJECT}",
                          "iat": now, "exp": now + 36000, "auth_time": now, "firebase": {"sign_in_provider": "password"}}), ""])


# --- The server --------------------------------------------------------------------------

class Server:
    def __init__(self, binary, work):
        self.binary, self.work = binary, work
        self.data = os.path.join(work, "data")
        self.rules = os.path.join(work, "firestore.rules")
        with open(self.rules, "w") as f:
            f.write(RULES)
        self.proc = None

    def start(self):
        ready = os.path.join(self.work, "ready")
        if os.path.exists(ready):
            os.remove(ready)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.console_port = s.getsockname()[1]
        log = open(os.path.join(self.work, "serve.log"), "ab")
        # A small compaction threshold and history limit: both reach their steady state
        # within the warm-up, so what grows after it is what the soak is looking for.
        self.proc = subprocess.Popen(
            [self.binary, "serve", "--port", "0", "--project", PROJECT, "--rules", self.rules,
             "--data-dir", self.data, "--compact-after", "2M", "--history-limit", "8M",
             "--console-port", str(self.console_port), "--header-timeout", "3", "--ready-file", ready],
            stdout=log, stderr=log)
        for _ in range(600):
            if os.path.exists(ready) and open(ready).read().strip():
                self.host = open(ready).read().strip()
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        sys.exit(f"soak: hearth serve did not start:\n{self.log_tail()}")

    def log_tail(self):
        with open(os.path.join(self.work, "serve.log"), errors="replace") as f:
            return f.read()[-4000:]

    def stop(self):
        try:
            conn = http.client.HTTPConnection(self.host, timeout=10)
            conn.request("POST", "/shutdown")
            conn.getresponse().read()
        except OSError:
            pass
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            fail("server", "did not stop within 30 s of /shutdown")

    def sample(self):
        pid = self.proc.pid
        status = {}
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                status[key] = value.strip()
        fds = len(os.listdir(f"/proc/{pid}/fd"))
        history = streams = None
        try:
            conn = http.client.HTTPConnection(f"127.0.0.1:{self.console_port}", timeout=5)
            conn.request("GET", "/api/info")
            info = json.loads(conn.getresponse().read())
            history, streams = info["history"]["usedBytes"], info["openStreams"]
        except (OSError, ValueError, KeyError):
            pass
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return {"rss": int(status["VmRSS"].split()[0]) * 1024, "fds": fds, "threads": int(status["Threads"]),
                "history": history, "streams": streams, "cpu": cpu}


def rest(host, method, path, body=None, uid=None, conn=None):
    headers = {"Content-Type": "application/json",
               "Authorization": f"Bearer {token(uid)}" if uid else "Bearer owner"}
    own = conn is None
    conn = conn or http.client.HTTPConnection(host, timeout=30)
    conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    response = conn.getresponse()
    data = response.read()
    if own:
        conn.close()
    return response.status, (json.loads(data) if data else None)


# --- Workers -----------------------------------------------------------------------------

def rest_writer(host, w):
    uid = f"user{w}"
    conn = None
    i = 0
    while not stop.is_set():
        i += 1
        path = f"soak/r{w}-{i % 200:03d}"
        try:
            conn = conn or http.client.HTTPConnection(host, timeout=30)
            body = {"fields": {"owner": {"stringValue": uid}, "i": {"integerValue": str(i)},
                               "pad": {"stringValue": "x" * random.randint(0, 300)}}}
            status, answer = rest(host, "PATCH", f"{REST_DOCS}/{path}", body, uid=uid, conn=conn)
            if status == 200:
                ack_value(path, i)
                count("rest write")
            else:
                fail("rest write", f"{status} {answer}")
            if i % 20 == 0:
                status, answer = rest(host, "GET", f"{REST_DOCS}/private/p{w}", uid=uid, conn=conn)
                if status == 403:
                    earn("rules denial (403)")
                else:
                    fail("rest denied read", f"{status} {answer}")
            if i % 10 == 0:
                query = {"structuredQuery": {"from": [{"collectionId": "soak"}], "limit": 20,
                                             "where": {"fieldFilter": {"field": {"fieldPath": "owner"}, "op": "EQUAL",
                                                                       "value": {"stringValue": uid}}}}}
                status, answer = rest(host, "POST", f"{REST_DOCS}:runQuery", query, uid=uid, conn=conn)
                if status == 200:
                    count("rest query")
                else:
                    fail("rest query", f"{status} {answer}")
        except (OSError, http.client.HTTPException) as e:
            fail("rest connection", repr(e))
            conn = None
            time.sleep(0.2)


def grpc_batch_writer(db, w):
    from google.cloud import firestore
    i = 0
    while not stop.is_set():
        i += 1
        batch = db.batch()
        paths = [f"soak/g{w}-{i % 100:03d}-{s}" for s in "abc"]
        for p in paths:
            batch.set(db.document(p), {"owner": "grpc", "i": i})
        batch.set(db.document(f"counters/g{w}"), {"n": firestore.Increment(1)}, merge=True)
        try:
            batch.commit()
        except Exception as e:  # noqa: BLE001 — any failure is an unexpected error here
            fail("grpc commit", repr(e))
            time.sleep(0.2)
            continue
        for p in paths:
            ack_value(p, i)
        ack_counter(f"counters/g{w}")
        count("grpc commit")


def contended_transactions(db, t):
    from google.api_core import exceptions
    from google.cloud import firestore
    ref = db.document("counters/contended")

    @firestore.transactional
    def increment(transaction):
        snap = ref.get(transaction=transaction)
        transaction.set(ref, {"n": (snap.get("n") if snap.exists else 0) + 1})

    while not stop.is_set():
        try:
            increment(db.transaction(max_attempts=10))
            ack_counter("counters/contended")
            count("transaction")
        except (exceptions.Aborted, ValueError) as e:
            # Gave up after its attempts under contention: not applied, not counted.
            earn("transaction gave up")
        except Exception as e:  # noqa: BLE001
            fail("transaction", repr(e))
            time.sleep(0.2)


def write_streams(db, w):
    import grpc
    from google.cloud.firestore_v1.types import firestore as fs, write as write_pb, document as doc_pb
    channel = grpc.insecure_channel(os.environ["FIRESTORE_EMULATOR_HOST"])
    call = channel.stream_stream("/google.firestore.v1.Firestore/Write",
                                 request_serializer=fs.WriteRequest.serialize,
                                 response_deserializer=fs.WriteResponse.deserialize)
    metadata = [("authorization", "Bearer owner"), ("google-cloud-resource-prefix", DATABASE)]
    i = 0
    while not stop.is_set():
        requests = _Queue()
        requests.put(fs.WriteRequest(database=DATABASE))
        try:
            responses = call(iter(requests.get, None), metadata=metadata)
            handshake = next(responses)
            stream_token = handshake.stream_token
            for _ in range(200):
                if stop.is_set():
                    break
                i += 1
                path = f"soak/s{w}-{i % 100:03d}"
                update = doc_pb.Document(name=f"{DOCS}/{path}", fields={"owner": {"string_value": "stream"},
                                                                       "i": {"integer_value": i}})
                requests.put(fs.WriteRequest(stream_token=stream_token, writes=[write_pb.Write(update=update)]))
                answer = next(responses)
                stream_token = answer.stream_token
                ack_value(path, i)
                count("write stream write")
            requests.put(None)
            for _ in responses:
                pass
            count("write stream")
        except Exception as e:  # noqa: BLE001
            requests.put(None)
            fail("write stream", repr(e))
            time.sleep(0.2)
    channel.close()


class _Queue:
    """A blocking queue whose get returns None to end the request iterator."""
    def __init__(self):
        self.items, self.cv = [], threading.Condition()

    def put(self, item):
        with self.cv:
            self.items.append(item)
            self.cv.notify()

    def get(self):
        with self.cv:
            while not self.items:
                self.cv.wait()
            return self.items.pop(0)


def grpc_watches(db):
    """A watch on counters/g0 for the whole run (its last value is checked at the end) and
    query watches attached and detached over and over."""
    from google.cloud.firestore_v1 import FieldFilter
    seen = {"n": None}
    done = threading.Event()

    def on_counter(snaps, changes, read_time):
        for s in snaps:
            seen["n"] = s.get("n")

    kept = db.document("counters/g0").on_snapshot(on_counter)
    while not stop.wait(0.5):
        got = threading.Event()

        def on_query(snaps, changes, read_time):
            got.set()
        try:
            w = db.collection("soak").where(filter=FieldFilter("owner", "==", "grpc")).limit(50).on_snapshot(on_query)
            if not got.wait(30):
                fail("grpc watch", "no snapshot within 30 s")
            else:
                count("grpc watch")
            w.unsubscribe()
        except Exception as e:  # noqa: BLE001
            fail("grpc watch", repr(e))
    return kept, seen


def webchannel_listener(host, n):
    path = "/google.firestore.v1.Firestore/Listen/channel"
    database = urllib.parse.quote(DATABASE, safe="")
    while not stop.is_set():
        conn = http.client.HTTPConnection(host, timeout=30)
        with lock:
            long_polls.append(conn)
        step = "handshake"
        try:
            first = {"database": DATABASE, "addTarget": {"targetId": 2, "query": {
                "parent": DOCS, "structuredQuery": {"from": [{"collectionId": "soak"}], "where": {"fieldFilter": {
                    "field": {"fieldPath": "owner"}, "op": "EQUAL", "value": {"stringValue": f"user{n}"}}}}}}}
            body = urllib.parse.urlencode({"headers": "Authorization:Bearer owner\r\nContent-Type:text/plain\r\n",
                                           "count": 1, "ofs": 0, "req0___data__": json.dumps(first)})
            conn.request("POST", f"{path}?VER=8&database={database}&RID=1&CVER=22&X-HTTP-Session-Id=gsessionid&t=1",
                         body=body, headers={"Content-Type": "application/x-www-form-urlencoded"})
            answer = conn.getresponse()
            text = answer.read().decode()
            if answer.status != 200:
                fail("webchannel handshake", f"{answer.status} {text[:200]}")
                time.sleep(0.5)
                continue
            sid = json.loads(text.split("\n", 1)[1])[0][1][1]
            aid, messages, current = 0, 0, False
            deadline = time.time() + 8
            while time.time() < deadline and not stop.is_set():
                step = f"back channel GET (AID {aid}, {messages} messages so far)"
                conn.request("GET", f"{path}?VER=8&database={database}&RID=rpc&SID={sid}&AID={aid}&CI=1&TYPE=xmlhttp&t=1")
                answer = conn.getresponse()
                text = answer.read().decode()
                if answer.status != 200:
                    fail("webchannel back channel", f"{answer.status} {text[:200]}")
                    break
                while text:
                    length, _, rest_ = text.partition("\n")
                    payload, text = rest_[:int(length)], rest_[int(length):]
                    for array_id, wrapped in json.loads(payload):
                        aid = max(aid, array_id)
                        message = wrapped[0] if isinstance(wrapped, list) and wrapped else wrapped
                        messages += 1
                        if isinstance(message, dict) and message.get("targetChange", {}).get("targetChangeType") == "CURRENT":
                            current = True
                        if isinstance(message, dict) and "error" in message:
                            fail("webchannel listen", json.dumps(message)[:200])
            step = "terminate"
            conn.request("POST", f"{path}?VER=8&database={database}&SID={sid}&RID=2&TYPE=terminate&t=1", body=b"")
            conn.getresponse().read()
            if current:
                count("webchannel session")
            elif not stop.is_set():
                fail("webchannel listen", f"no CURRENT in 8 s ({messages} messages)")
        except (OSError, http.client.HTTPException, ValueError, IndexError) as e:
            if stop.is_set():
                break  # a long poll waiting for data when the load stopped: cut by stop_long_polls
            fail("webchannel", f"{step}: {e!r}")
            time.sleep(0.5)
        finally:
            with lock:
                long_polls.remove(conn)
            conn.close()


long_polls = []


def stop_long_polls():
    """A long poll waits until the target changes — after the load, until the client gives
    up (the SDK: 45 s). Cut them at the end of the run."""
    with lock:
        for conn in long_polls:
            if conn.sock:
                try:
                    conn.sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


def slowloris(host):
    """Twenty connections that send a request head a byte at a time, too slowly: the server
    closes each at its head timeout; they reconnect."""
    h, p = host.rsplit(":", 1)
    head = f"GET {REST_DOCS}/soak/r0-001 HTTP/1.1\r\nHost: x\r\nX-Slow: " + "a" * 100
    socks = []
    while not stop.wait(0.5):
        while len(socks) < 20:
            try:
                socks.append([socket.create_connection((h, int(p)), timeout=5), 0])
            except OSError as e:
                fail("slowloris connect", repr(e))
                break
        for entry in list(socks):
            s, sent = entry
            try:
                s.send(head[sent % len(head)].encode())
                entry[1] += 1
            except OSError:
                earn("slowloris closed by the server")
                s.close()
                socks.remove(entry)
    for s, _ in socks:
        s.close()


def hpack_literal(headers):
    out = b""
    for name, value in headers:
        out += b"\x00" + bytes([len(name)]) + name.encode() + bytes([len(value)]) + value.encode()
    return out


def h2frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def rapid_reset(host):
    """Every few seconds: a connection that opens and resets streams as fast as it can
    (CVE-2023-44487); the server ends it with GOAWAY once past its reset budget."""
    h, p = host.rsplit(":", 1)
    block = hpack_literal([(":method", "POST"), (":scheme", "http"), (":path", "/google.firestore.v1.Firestore/GetDocument"),
                           (":authority", host), ("content-type", "application/grpc"), ("te", "trailers")])
    while not stop.wait(3):
        try:
            s = socket.create_connection((h, int(p)), timeout=5)
            s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + h2frame(4, 0, 0))
            for stream in range(1, 2001, 2):
                s.sendall(h2frame(1, 4, stream, block) + h2frame(3, 0, stream, struct.pack(">I", 8)))
            s.settimeout(5)
            # The server's answer ends with GOAWAY (type 7) once the resets pass its budget.
            seen = b""
            while len(seen) < 1 << 20:
                chunk = s.recv(65536)
                if not chunk:
                    break
                seen += chunk
            earn("rapid reset ended by GOAWAY" if b"\x07\x00\x00\x00\x00\x00" in seen else "rapid reset closed")
            s.close()
        except OSError:
            earn("rapid reset ended by the server")


# --- Checks ------------------------------------------------------------------------------

def verify(host, what):
    """Every acknowledged value and counter, read back with the owner's rights."""
    conn = http.client.HTTPConnection(host, timeout=60)
    wrong = 0
    for path, i in sorted(last_value.items()):
        status, doc = rest(host, "GET", f"{REST_DOCS}/{path}", conn=conn)
        got = int(doc["fields"]["i"]["integerValue"]) if status == 200 else None
        # A write sent but not acknowledged (cut short by the end of the run) may be later.
        if got is None or got < i:
            wrong += 1
            if wrong <= 10:
                print(f"soak: FAIL {what}: {path} has i={got}, acknowledged {i}")
    for path, n in sorted(counter_acks.items()):
        status, doc = rest(host, "GET", f"{REST_DOCS}/{path}", conn=conn)
        got = int(doc["fields"]["n"]["integerValue"]) if status == 200 else None
        if got != n:
            wrong += 1
            print(f"soak: FAIL {what}: {path} is {got}, acknowledged increments {n}")
    conn.close()
    print(f"soak: {what}: {len(last_value)} documents and {len(counter_acks)} counters checked, {wrong} wrong", flush=True)
    return wrong


def slope(samples, key, warmup):
    points = [(s["t"], s[key]) for s in samples if s["t"] >= warmup and s[key] is not None]
    if len(points) < 3:
        return 0.0
    n = len(points)
    mx = sum(t for t, _ in points) / n
    my = sum(v for _, v in points) / n
    den = sum((t - mx) ** 2 for t, _ in points)
    return sum((t - mx) * (v - my) for t, v in points) / den * 60 if den else 0.0  # per minute


def main():
    global args
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--warmup", type=float, default=None, help="default: a third of the run")
    parser.add_argument("--interval", type=float, default=1.0)
    parser.add_argument("--csv")
    parser.add_argument("--png")
    parser.add_argument("--max-rss-slope", type=float, default=None, help="MiB per minute after warm-up")
    args = parser.parse_args()
    warmup = args.warmup if args.warmup is not None else args.seconds / 3

    work = tempfile.mkdtemp(prefix="hearth-soak-")
    server = Server(args.binary, work)
    server.start()
    os.environ["FIRESTORE_EMULATOR_HOST"] = server.host
    from google.cloud import firestore
    db = firestore.Client(project=PROJECT)

    time.sleep(0.5)
    before = server.sample()
    print(f"soak: hearth serve at {server.host} (pid {server.proc.pid}); {args.seconds:.0f} s of load, "
          f"warm-up {warmup:.0f} s; before: {before['fds']} descriptors, {before['threads']} threads, "
          f"{before['rss'] / 2**20:.1f} MiB", flush=True)

    threads = []
    def spawn(target, *a):
        t = threading.Thread(target=target, args=a, daemon=True)
        t.start()
        threads.append(t)
    for w in range(3):
        spawn(rest_writer, server.host, w)
    for w in range(2):
        spawn(grpc_batch_writer, db, w)
    for t in range(3):
        spawn(contended_transactions, db, t)
    for w in range(2):
        spawn(write_streams, db, w)
    for n in range(3):
        spawn(webchannel_listener, server.host, n)
    spawn(slowloris, server.host)
    spawn(rapid_reset, server.host)
    watch_result = {}
    spawn(lambda: watch_result.update(zip(("kept", "seen"), grpc_watches(db))))

    samples = []
    start = time.time()
    next_report = 10
    while (elapsed := time.time() - start) < args.seconds:
        s = server.sample()
        s["t"] = elapsed
        samples.append(s)
        if elapsed >= next_report:
            next_report += 10 if args.seconds <= 300 else 60
            with lock:
                done = sum(counts.values())
            print(f"soak: {elapsed:5.0f}/{args.seconds:.0f} s  {done} operations  rss {s['rss'] / 2**20:.1f} MiB  "
                  f"fds {s['fds']}  threads {s['threads']}  history {(s['history'] or 0) / 2**20:.1f} MiB  "
                  f"streams {s['streams']}  cpu {s['cpu']:.0f} s  errors {len(errors)}", flush=True)
        time.sleep(args.interval)
    stop.set()
    stop_long_polls()
    for t in threads:
        t.join(60)
    stuck = [t for t in threads if t.is_alive()]
    if stuck:
        fail("workload", f"{len(stuck)} worker threads did not finish within 60 s of the end")
    if "kept" in watch_result:
        watch_result["kept"].unsubscribe()
    db.close()
    # Idle connections of the clients are gone; give the server a moment to see it.
    time.sleep(3)
    after = server.sample()

    wrong = verify(server.host, "after the load")
    kept_n = watch_result.get("seen", {}).get("n")
    if counter_acks.get("counters/g0") is not None and kept_n != counter_acks["counters/g0"]:
        # The watch may lag the last commit by a moment: look again once.
        time.sleep(2)
        kept_n = watch_result.get("seen", {}).get("n")
        if kept_n != counter_acks["counters/g0"]:
            fail("grpc watch", f"the kept watch last saw counters/g0 = {kept_n}, acknowledged {counter_acks['counters/g0']}")
    server.stop()
    restart = time.time()
    server.start()
    restart = time.time() - restart
    wrong += verify(server.host, f"after a restart from the data dir ({restart:.1f} s)")
    server.stop()

    rss_slope = slope(samples, "rss", warmup) / 2**20
    fd_slope = slope(samples, "fds", warmup)
    thread_slope = slope(samples, "threads", warmup)
    history_slope = slope(samples, "history", warmup) / 2**20
    if args.csv:
        with open(args.csv, "w") as f:
            f.write("seconds,rss_bytes,descriptors,threads,history_bytes,open_streams,cpu_seconds\n")
            for s in samples:
                f.write(f"{s['t']:.1f},{s['rss']},{s['fds']},{s['threads']},{s['history'] or ''},{s['streams'] or ''},{s['cpu']:.2f}\n")
    if args.png:
        soak_plot.plot(args.png, samples, warmup)

    print("\nsoak: summary")
    for kind, n in sorted(counts.items()):
        print(f"  {kind:28} {n:8}")
    for kind, n in sorted(earned.items()):
        print(f"  {kind:28} {n:8}  (earned)")
    peak = max(s["rss"] for s in samples)
    print(f"  resident memory: {before['rss'] / 2**20:.1f} MiB before, peak {peak / 2**20:.1f} MiB, "
          f"slope after warm-up {rss_slope:+.2f} MiB/min")
    print(f"  descriptors: {before['fds']} before, {after['fds']} after the load (slope {fd_slope:+.2f}/min)")
    print(f"  threads: {before['threads']} before, {after['threads']} after the load (slope {thread_slope:+.2f}/min)")
    print(f"  version history: slope {history_slope:+.2f} MiB/min (limit 8 MiB)")
    print(f"  server CPU: {samples[-1]['cpu']:.0f} s over {args.seconds:.0f} s; restart from the data dir {restart:.1f} s")
    print(f"  unexpected errors: {len(errors)}; wrong documents: {wrong}")

    problems = []
    if errors:
        problems.append(f"{len(errors)} unexpected errors")
    if wrong:
        problems.append(f"{wrong} acknowledged writes not readable as acknowledged")
    # The server's own files (log, snapshot) may differ by a couple; every client connection is gone.
    if after["fds"] > before["fds"] + 3:
        problems.append(f"descriptors did not come back: {before['fds']} before, {after['fds']} after")
    # Worker threads start on demand up to the pool's size: the warm-up's peak is the level.
    warm_threads = max(s["threads"] for s in samples if s["t"] < warmup)
    if after["threads"] > warm_threads:
        problems.append(f"threads did not come back: at most {warm_threads} in the warm-up, {after['threads']} after")
    if args.max_rss_slope is not None and rss_slope > args.max_rss_slope:
        problems.append(f"resident memory grows {rss_slope:.2f} MiB/min after warm-up (bound {args.max_rss_slope})")
    for kind in ("rest write", "grpc commit", "transaction", "write stream write", "grpc watch", "webchannel session"):
        if not counts.get(kind):
            problems.append(f"no {kind} succeeded")
    if problems:
        print("soak: FAILED — " + "; ".join(problems))
        print(server.log_tail())
        sys.exit(1)
    shutil.rmtree(work, ignore_errors=True)
    print("soak: passed")


if __name__ == "__main__":
    main()
