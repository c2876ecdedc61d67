#!/usr/bin/env python3
"""Cloud Functions trigger delivery under load: 1,000 writes (creates, updates, deletes —
some of missing documents —, single writes and batches) over 50 documents from 4 writer
threads, each owning its documents, with four triggers registered (1st gen write and create,
2nd gen written and deleted). A stand-in Functions emulator (Tests/Differential/functions.py)
receives the events; every event must arrive exactly once and, per trigger and document, in
commit order. The expected events come from a model of the official emulator's rules
(recorded in Tests/Differential/recorded/triggers.json): 1st gen fires on changes of content,
2nd gen on every document a write names (the delete of a missing document is a create there).

    trigger_delivery_check.py HEARTH_HOST FUNCTIONS_PORT
"""
import base64
import http.client
import json
import os
import random
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Differential"))
import functions  # noqa: E402

HOST, FPORT = sys.argv[1], int(sys.argv[2])
PROJECT = f"demo-trigger-delivery-{os.getpid()}"  # a fresh project each run
DOCS = f"projects/{PROJECT}/databases/(default)/documents"
WRITES, DOCUMENTS, THREADS = 1000, 50, 4
TRIGGERS = {
    "us-central1-v1write-0": ("v1", "write"), "us-central1-v1create-0": ("v1", "create"),
    "us-central1-v2written-0": ("v2", "written"), "us-central1-v2deleted-0": ("v2", "deleted"),
}


def call(conn, method, path, body=None):
    conn.request(method, path, body=json.dumps(body) if body is not None else None,
                 headers={"Content-Type": "application/json"})
    r = conn.getresponse()
    data = r.read()
    if r.status != 200:
        sys.exit(f"{method} {path}: {r.status} {data[:300]!r}")
    return json.loads(data or b"{}")


def main():
    recorder = functions.Recorder(FPORT)
    h, p = HOST.rsplit(":", 1)
    conn = http.client.HTTPConnection(h, int(p), timeout=30)
    call(conn, "PUT", "/emulator/v1/triggers:config", {"functionsEmulator": f"127.0.0.1:{FPORT}", "paused": False})
    for key, (gen, kind) in TRIGGERS.items():
        if gen == "v1":
            call(conn, "PUT", f"/emulator/v1/projects/{PROJECT}/triggers/{key}", {"eventTrigger": {
                "eventType": f"providers/cloud.firestore/eventTypes/document.{kind}",
                "resource": f"{DOCS}/items/{{id}}", "service": "firestore.googleapis.com"}})
        else:
            call(conn, "POST", f"/emulator/v1/projects/{PROJECT}/eventarcTrigger?eventarcTriggerId={key}", {
                "eventType": f"google.cloud.firestore.document.v1.{kind}", "database": "(default)",
                "namespace": "(default)", "document": {"value": "items/{id}", "matchType": "PATH_PATTERN"}})
    before = call(conn, "GET", "/emulator/v1/triggers:config")

    # The plan: each thread owns documents i ≡ t (mod THREADS); a step is one write or a
    # batch of up to 3 writes to its documents. seq numbers every write.
    rng = random.Random(35)
    expected = {k: {} for k in TRIGGERS}  # trigger -> doc -> [(before seq, after seq)]
    plans = [[] for _ in range(THREADS)]
    exists = {}  # doc -> seq of its current version, or None
    seq = 0
    while seq < WRITES:
        t = rng.randrange(THREADS)
        mine = [d for d in range(DOCUMENTS) if d % THREADS == t]
        batch = []
        for d in rng.sample(mine, min(len(mine), rng.choice([1, 1, 1, 2, 3]))):
            if seq >= WRITES:
                break
            seq += 1
            doc = f"items/d{d}"
            old = exists.get(doc)
            delete = rng.random() < 0.25
            new = None if delete else seq
            batch.append((doc, new, seq))
            exists[doc] = new
            changed = not (old is None and new is None)
            for key, (gen, kind) in TRIGGERS.items():
                fires = {("v1", "write"): changed, ("v1", "create"): old is None and new is not None,
                         ("v2", "written"): True, ("v2", "deleted"): old is not None and new is None}[(gen, kind)]
                if fires:
                    expected[key].setdefault(doc, []).append((old, new))
        plans[t].append(batch)

    errors = []

    def writer(steps):
        c = http.client.HTTPConnection(h, int(p), timeout=30)
        for batch in steps:
            writes = []
            for doc, new, s in batch:
                if new is None:
                    writes.append({"delete": f"{DOCS}/{doc}"})
                else:
                    writes.append({"update": {"name": f"{DOCS}/{doc}", "fields": {"seq": {"integerValue": str(new)}}}})
            try:
                call(c, "POST", f"/v1/{DOCS}:commit", {"writes": writes})
            except SystemExit as e:
                errors.append(str(e))
                return

    start = time.time()
    threads = [threading.Thread(target=writer, args=(plans[t],)) for t in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    elapsed = time.time() - start
    if errors:
        sys.exit(f"writes failed: {errors[:3]}")
    want = sum(len(v) for per in expected.values() for v in per.values())
    events = recorder.take(quiet=1.0, wait=30, count=want)
    print(f"{WRITES} writes in {elapsed:.2f} s; {len(events)} events received, {want} expected")

    got = {k: {} for k in TRIGGERS}
    problems = []
    for e in events:
        key = e["path"].rsplit("/", 1)[-1]
        if key not in TRIGGERS:
            problems.append(f"an event for an unknown trigger: {e['path']}")
            continue
        headers = dict(e["headers"])
        if "json" in headers.get("content-type", ""):
            data = json.loads(e["body"])["data"]
        else:
            data = functions.document_event_data(base64.b64decode(e["body"]))
        seq_of = lambda d: int(d["fields"]["seq"]["integerValue"]) if d else None
        name = (data.get("value") or data.get("oldValue") or {}).get("name") or f"{DOCS}/{headers.get('ce-document', '')}"
        doc = name.split("/documents/", 1)[1]
        got[key].setdefault(doc, []).append((seq_of(data.get("oldValue")), seq_of(data.get("value"))))
    for key in TRIGGERS:
        for doc in sorted(set(expected[key]) | set(got[key])):
            w, g = expected[key].get(doc, []), got[key].get(doc, [])
            if w != g:
                problems.append(f"{key} {doc}: expected {w[:6]}… ({len(w)}), got {g[:6]}… ({len(g)})")
    after = call(conn, "GET", "/emulator/v1/triggers:config")
    delivered = after["delivered"] - before["delivered"]
    if delivered != want or after["failed"] != before["failed"] or after["dropped"] != before["dropped"]:
        problems.append(f"statistics: {after} (before: {before}); {want} deliveries expected")
    for line in problems[:20]:
        print("PROBLEM", line)
    if problems:
        sys.exit(f"trigger delivery: {len(problems)} problems")
    print(f"every one of {want} events delivered once, in per-document order "
          f"({', '.join(f'{k}: {sum(len(v) for v in expected[k].values())}' for k in TRIGGERS)})")


if __name__ == "__main__":
    main()
