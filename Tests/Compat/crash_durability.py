"""Kills `hearth serve --data-dir` with SIGKILL during a storm of concurrent commits, several
times, and checks after each restart that every acknowledged write is there, every batch is
all or nothing, and nothing unacknowledged shows up half done.

Each commit is one batch from one writer: three documents storm/w<T>-<I>-{a,b,c} and an
increment of counters/w<T>. So after any crash, for each writer: each batch has 0 or 3
documents, every acknowledged batch has 3, no batch appears that was never sent, and the
counter equals the number of that writer's batches present. Standard library only.

usage: crash_durability.py HEARTH_BINARY [ROUNDS] [WRITERS]
"""
import http.client
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time

BINARY = sys.argv[1]
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
WRITERS = int(sys.argv[3]) if len(sys.argv) > 3 else 8
PROJECT = "crash"
DOCS = f"projects/{PROJECT}/databases/(default)/documents"


def start(data_dir, work):
    ready = os.path.join(work, "ready")
    if os.path.exists(ready):
        os.remove(ready)
    log = open(os.path.join(work, "serve.log"), "ab")
    # A small compaction threshold: crashes also land during background compactions.
    proc = subprocess.Popen([BINARY, "serve", "--port", "0", "--no-console", "--data-dir", data_dir,
                             "--compact-after", "256K", "--ready-file", ready], stdout=log, stderr=log)
    for _ in range(300):
        if os.path.exists(ready) and open(ready).read().strip():
            return proc, open(ready).read().strip()
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    log.close()
    sys.exit(f"crash-durability: hearth serve did not start:\n{open(os.path.join(work, 'serve.log')).read()}")


def request(host, method, path, body=None):
    conn = http.client.HTTPConnection(host, timeout=30)
    conn.request(method, path, body=json.dumps(body) if body is not None else None,
                 headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, (json.loads(data) if data else None)


def batch(writer, index):
    def doc(suffix):
        return {"update": {"name": f"{DOCS}/storm/w{writer}-{index}-{suffix}",
                           "fields": {"w": {"integerValue": str(writer)}, "i": {"integerValue": str(index)},
                                      "pad": {"stringValue": "x" * random.randint(0, 400)}}}}
    counter = {"update": {"name": f"{DOCS}/counters/w{writer}", "fields": {}}, "updateMask": {"fieldPaths": []},
               "updateTransforms": [{"fieldPath": "n", "increment": {"integerValue": "1"}}]}
    return {"writes": [doc("a"), doc("b"), doc("c"), counter]}


class Writer(threading.Thread):
    def __init__(self, number, host, stop, sent, acked, start_index):
        super().__init__(daemon=True)
        self.number, self.host, self.stop, self.sent, self.acked = number, host, stop, sent, acked
        self.index = start_index

    def run(self):
        conn = None
        while not self.stop.is_set():
            self.index += 1
            self.sent.add((self.number, self.index))
            try:
                if conn is None:
                    conn = http.client.HTTPConnection(self.host, timeout=10)
                conn.request("POST", f"/v1/{DOCS}:commit", body=json.dumps(batch(self.number, self.index)),
                             headers={"Content-Type": "application/json"})
                response = conn.getresponse()
                response.read()
                if response.status == 200:
                    self.acked.add((self.number, self.index))
                else:
                    return
            except Exception:
                return  # the server died


def read_back(host):
    status, rows = request(host, "POST", f"/v1/{DOCS}:runQuery", {"structuredQuery": {"from": [{"collectionId": "storm"}]}})
    assert status == 200, (status, rows)
    docs = [r["document"] for r in rows if "document" in r]
    status, rows = request(host, "POST", f"/v1/{DOCS}:runQuery", {"structuredQuery": {"from": [{"collectionId": "counters"}]}})
    assert status == 200, (status, rows)
    counters = {r["document"]["name"].rsplit("/", 1)[1]: int(r["document"]["fields"]["n"]["integerValue"])
                for r in rows if "document" in r}
    return docs, counters


def check(host, sent, acked, round_number):
    docs, counters = read_back(host)
    parts = {}
    for d in docs:
        writer, index, suffix = d["name"].rsplit("/", 1)[1].split("-")
        key = (int(writer[1:]), int(index))
        assert d["fields"]["w"]["integerValue"] == str(key[0]) and d["fields"]["i"]["integerValue"] == str(key[1]), d
        parts.setdefault(key, set()).add(suffix)
    problems = []
    for key, found in parts.items():
        if found != {"a", "b", "c"}:
            problems.append(f"batch {key} is half there: {sorted(found)}")
        if key not in sent:
            problems.append(f"batch {key} was never sent")
    for key in acked:
        if key not in parts:
            problems.append(f"acknowledged batch {key} is missing")
    for writer in range(WRITERS):
        present = sum(1 for (w, _) in parts if w == writer)
        if counters.get(f"w{writer}", 0) != present:
            problems.append(f"counters/w{writer} is {counters.get(f'w{writer}', 0)} but {present} of its batches are present")
    if problems:
        sys.exit(f"crash-durability: round {round_number}: " + "; ".join(problems[:10]))
    return len(parts)


def main():
    work = tempfile.mkdtemp(prefix="hearth-crash-")
    data_dir = os.path.join(work, "data")
    sent, acked = set(), set()
    next_index = [0] * WRITERS
    started = time.time()
    for round_number in range(1, ROUNDS + 1):
        proc, host = start(data_dir, work)
        if round_number > 1:
            present = check(host, sent, acked, round_number - 1)
            print(f"crash-durability: after crash {round_number - 1}: {present} batches present, "
                  f"{len(acked)} acknowledged, {len(sent)} sent — all acknowledged present, none half done")
        stop = threading.Event()
        writers = [Writer(w, host, stop, sent, acked, next_index[w]) for w in range(WRITERS)]
        for w in writers:
            w.start()
        time.sleep(random.uniform(0.8, 2.0))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        stop.set()
        for w in writers:
            w.join()
            next_index[w.number] = w.index
    proc, host = start(data_dir, work)
    present = check(host, sent, acked, ROUNDS)
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    files = sorted(os.listdir(data_dir))
    print(f"crash-durability: after crash {ROUNDS}: {present} batches present, {len(acked)} acknowledged, "
          f"{len(sent)} sent; data directory {files}; {time.time() - started:.1f} s")
    subprocess.run(["rm", "-rf", work])


main()
