"""The official Python client against faults injected through Hearth's endpoint
(Tests/Compat/faults.sh, docs/faults.md). Each case sets a fault, runs the client, reads the
fault's `fired` count back (how many requests it hit: the client's attempts) and checks the
data. Exits non-zero on any mismatch."""
import json
import os
import threading
import time
import urllib.request

from google.api_core import exceptions
from google.cloud import firestore

HOST = os.environ["FIRESTORE_EMULATOR_HOST"]
PROJECT = "demo-faults"
FAULTS = f"http://{HOST}/emulator/v1/projects/{PROJECT}/faults"
failures = []


def check(label, actual, expected):
    if actual != expected:
        failures.append(label)
        print(f"FAIL {label}: expected {expected!r}, got {actual!r}")
    else:
        print(f"ok   {label}")


def call(method, url, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def inject(**rule):
    return call("POST", FAULTS, rule)["faults"][0]["id"]


def fired(fault_id):
    """How many requests the fault hit (None once a `times` rule is used up and gone)."""
    for f in call("GET", FAULTS)["faults"]:
        if f["id"] == fault_id:
            return f["fired"]
    return None


def clear():
    call("DELETE", FAULTS)


db = firestore.Client(project=PROJECT)
docs = db.collection("faults")
docs.document("a").set({"n": 0, "tag": "x"})

# --- Reads retried on UNAVAILABLE ----------------------------------------------------
# google-cloud-firestore's default retry for BatchGetDocuments and RunQuery covers
# UNAVAILABLE: two injected failures, then the third attempt answers.
inject(method="BatchGetDocuments", error="UNAVAILABLE", times=2)
start = time.monotonic()
check("get retried through 2 x UNAVAILABLE", docs.document("a").get().to_dict(), {"n": 0, "tag": "x"})
check("the get's fault is used up (3 attempts)", call("GET", FAULTS)["faults"], [])
inject(method="RunQuery", error="UNAVAILABLE", times=2)
check("query retried through 2 x UNAVAILABLE", [d.id for d in docs.where("tag", "==", "x").stream()], ["a"])
check("the query's fault is used up", call("GET", FAULTS)["faults"], [])

# A reset (the connection closed under the call) is UNAVAILABLE to the client: retried too.
inject(method="BatchGetDocuments", reset=True, once=True)
check("get retried after a connection reset", docs.document("a").get().get("n"), 0)

# A delay is only slower.
inject(method="BatchGetDocuments", delay=300, once=True)
start = time.monotonic()
docs.document("a").get()
check("a 300 ms delay is seen", time.monotonic() - start >= 0.3, True)

# A status the client does not retry is reported.
inject(method="BatchGetDocuments", error="INTERNAL", message="injected", always=True)
try:
    docs.document("a").get(retry=None)
    check("INTERNAL without retry is raised", "no error", "InternalServerError")
except exceptions.InternalServerError as e:
    check("INTERNAL without retry is raised", "injected" in str(e), True)
clear()

# --- A transaction retried after ABORTED commits once -----------------------------------
counter = docs.document("counter")
counter.set({"n": 0})
fault = inject(method="Commit", error="ABORTED", once=True)
attempts = []


@firestore.transactional
def bump(transaction):
    attempts.append(1)
    snap = counter.get(transaction=transaction)
    transaction.update(counter, {"n": snap.get("n") + 1})


bump(db.transaction())
check("the transaction function ran twice (ABORTED, then committed)", len(attempts), 2)
check("the counter went up exactly once", counter.get().get("n"), 1)
check("the ABORTED fault is used up", fired(fault), None)

# --- A commit whose answer is dropped ----------------------------------------------------
# The server commits, then closes the connection: the client sees UNAVAILABLE, and its
# default retry for Commit (UNAVAILABLE, RESOURCE_EXHAUSTED) sends the commit again. Each
# server commit happened exactly once: an idempotent set holds its value; a non-idempotent
# increment was applied by both attempts — the ambiguity production has too.
plain = docs.document("plain")
inject(method="Commit", dropAnswer=True, once=True)
plain.set({"v": "written"})
check("a set whose answer was dropped: the retry succeeds, the data is the write", plain.get().to_dict(), {"v": "written"})

counted = docs.document("counted")
counted.set({"n": 0})
inject(method="Commit", dropAnswer=True, once=True)
counted.update({"n": firestore.Increment(1)})
check("an increment whose answer was dropped: committed once, then once more by the client's retry", counted.get().get("n"), 2)

# Without the client's retry, the lost answer is an error while the write is in.
inject(method="Commit", dropAnswer=True, once=True)
lost = docs.document("lost")
try:
    lost.set({"v": 1}, retry=None)
    check("a dropped answer without retry is an error", "no error", "ServiceUnavailable")
except exceptions.ServiceUnavailable:
    check("a dropped answer without retry is an error", "ServiceUnavailable", "ServiceUnavailable")
check("... and the write happened, once", lost.get().to_dict(), {"v": 1})

# A write refused by injection did not happen.
inject(method="Commit", error="RESOURCE_EXHAUSTED", always=True)
try:
    docs.document("refused").set({"v": 1}, retry=None)
    check("RESOURCE_EXHAUSTED is raised", "no error", "ResourceExhausted")
except exceptions.ResourceExhausted:
    check("RESOURCE_EXHAUSTED is raised", "ResourceExhausted", "ResourceExhausted")
clear()
check("... and the refused write is not there", docs.document("refused").get().exists, False)

# --- A Listen stream dropped mid-way: the watch reconnects ---------------------------------
inject(method="Listen", dropAfter=2, once=True)
seen = []
ready = threading.Event()


def on_snapshot(snapshot, changes, read_time):
    seen.append(sorted(d.id for d in snapshot))
    if "late" in seen[-1]:
        ready.set()


watch = docs.where("tag", "==", "x").on_snapshot(on_snapshot)
time.sleep(0.5)
docs.document("late").set({"tag": "x"})
check("the watch recovered from the dropped stream and saw the later write", ready.wait(20), True)
watch.unsubscribe()
check("its last snapshot is whole", seen[-1] if seen else None, ["a", "late"])
clear()

if failures:
    print(f"{len(failures)} failure(s)")
    raise SystemExit(1)
print("all fault cases passed")
