"""Drives `hearth serve` with the official google-cloud-firestore client over gRPC
(FIRESTORE_EMULATOR_HOST) and checks every answer: CRUD, queries (filters, order, limit,
cursors, collection groups), aggregations, transactions (a conflict and its retry), get_all,
list_documents, collections(), batch writes and on_snapshot watches (Listen) on a document
and a query through a scripted series of writes. Exits non-zero on any mismatch."""
import sys
import threading
import time

from google.api_core import exceptions
from google.cloud import firestore
from google.cloud.firestore_v1 import FieldFilter, Or
from google.cloud.firestore_v1.base_query import BaseQuery

failures = []


def check(label, actual, expected):
    if actual != expected:
        failures.append(label)
        print(f"FAIL {label}: expected {expected!r}, got {actual!r}")
    else:
        print(f"ok   {label}")


db = firestore.Client(project="demo-grpc-compat")
users = db.collection("users")

# --- CRUD -----------------------------------------------------------------------------
ada = users.document("ada")
ada.set({"name": "Ada", "age": 36, "tags": ["math"], "nested": {"x": 1}})
check("get after set", ada.get().to_dict(), {"name": "Ada", "age": 36, "tags": ["math"], "nested": {"x": 1}})
ada.set({"nested": {"y": 2}}, merge=True)
check("merge set", ada.get().get("nested"), {"x": 1, "y": 2})
ada.update({"age": firestore.Increment(1), "tags": firestore.ArrayUnion(["logic"]), "when": firestore.SERVER_TIMESTAMP})
snap = ada.get()
check("update with transforms", (snap.get("age"), snap.get("tags"), snap.get("when") is not None), (37, ["math", "logic"], True))
check("get with field paths", ada.get(field_paths=["name"]).to_dict(), {"name": "Ada"})
try:
    ada.create({"x": 1})
    check("create existing raises", "no error", "AlreadyExists")
except exceptions.AlreadyExists:
    check("create existing raises", "AlreadyExists", "AlreadyExists")
try:
    users.document("nobody").update({"x": 1})
    check("update missing raises", "no error", "NotFound")
except exceptions.NotFound:
    check("update missing raises", "NotFound", "NotFound")
_, added = users.add({"name": "Bob", "age": 25})
check("add generates a 20-char id", len(added.id), 20)
added.delete()
check("deleted doc missing", added.get().exists, False)

for id_, name, age, city in [("bob", "Bob", 25, "Paris"), ("cy", "Cy", 41, "Rome"), ("di", "Di", 30, "Paris"), ("ed", "Ed", 52, None)]:
    data = {"name": name, "age": age}
    if city:
        data["city"] = city
    users.document(id_).set(data)
users.document("bob").collection("posts").document("p1").set({"title": "hi", "likes": 3})
users.document("cy").collection("posts").document("p2").set({"title": "yo", "likes": 7})

# --- Queries --------------------------------------------------------------------------
def ids(query):
    return [d.id for d in query.stream()]

check("where ==", ids(users.where(filter=FieldFilter("city", "==", "Paris")).order_by("age")), ["bob", "di"])
check("range + order desc", ids(users.where(filter=FieldFilter("age", ">", 30)).order_by("age", direction="DESCENDING")), ["ed", "cy", "ada"])
check("limit", ids(users.order_by("age").limit(2)), ["bob", "di"])
check("limit_to_last", [d.id for d in users.order_by("age").limit_to_last(2).get()], ["cy", "ed"])
check("offset", ids(users.order_by("age").offset(3)), ["cy", "ed"])
check("start_at / end_before", ids(users.order_by("age").start_at({"age": 30}).end_before({"age": 41})), ["di", "ada"])
check("start_after", ids(users.order_by("age").start_after({"age": 37})), ["cy", "ed"])
check("in", ids(users.where(filter=FieldFilter("name", "in", ["Cy", "Ed"])).order_by("name")), ["cy", "ed"])
check("array_contains", ids(users.where(filter=FieldFilter("tags", "array_contains", "logic"))), ["ada"])
check("or", ids(users.where(filter=Or([FieldFilter("age", "<", 26), FieldFilter("age", ">", 50)])).order_by("age")), ["bob", "ed"])
check("!= ", ids(users.where(filter=FieldFilter("city", "!=", "Paris")).order_by("city")), ["cy"])
check("collection group", sorted(d.id for d in db.collection_group("posts").stream()), ["p1", "p2"])
check("collection group filtered", ids(db.collection_group("posts").where(filter=FieldFilter("likes", ">", 5))), ["p2"])
check("subcollection query", ids(users.document("bob").collection("posts")), ["p1"])
check("select", [d.to_dict() for d in users.where(filter=FieldFilter("name", "==", "Cy")).select(["age"]).stream()], [{"age": 41}])

# --- Aggregations ---------------------------------------------------------------------
res = users.count(alias="n").get()
check("count", res[0][0].value, 5)
agg = users.where(filter=FieldFilter("city", "==", "Paris")).sum("age", alias="s").avg("age", alias="a").get()
check("sum and avg", sorted((r.alias, r.value) for r in agg[0]), [("a", 27.5), ("s", 55)])
check("count of empty", users.where(filter=FieldFilter("age", ">", 100)).count().get()[0][0].value, 0)

# --- get_all, list_documents, collections ---------------------------------------------
got = {s.id: s.exists for s in db.get_all([users.document("ada"), users.document("zed"), users.document("cy")])}
check("get_all found/missing", got, {"ada": True, "zed": False, "cy": True})
db.collection("ghosts").document("g1").collection("sub").document("s").set({"x": 1})
check("list_documents incl. missing", sorted(d.id for d in db.collection("ghosts").list_documents()), ["g1"])
check("list_documents paged", sorted(d.id for d in users.list_documents(page_size=2)), ["ada", "bob", "cy", "di", "ed"])
check("collections()", sorted(c.id for c in db.collections()), ["ghosts", "users"])
check("document collections()", [c.id for c in users.document("bob").collections()], ["posts"])

# --- Batch and BulkWriter -------------------------------------------------------------
batch = db.batch()
batch.set(db.collection("batch").document("a"), {"v": 1})
batch.set(db.collection("batch").document("b"), {"v": 2})
batch.delete(users.document("ed"))
batch.commit()
check("batch commit", (ids(db.collection("batch")), users.document("ed").get().exists), (["a", "b"], False))
bulk = db.bulk_writer()
for i in range(30):
    bulk.set(db.collection("bulk").document(f"d{i:02}"), {"i": i})
bulk.close()
check("bulk writer", db.collection("bulk").count().get()[0][0].value, 30)

# --- Transactions ---------------------------------------------------------------------
counter = db.collection("counters").document("c")
counter.set({"n": 0})


@firestore.transactional
def bump(transaction, ref):
    snap = ref.get(transaction=transaction)
    transaction.update(ref, {"n": snap.get("n") + 1})


bump(db.transaction(), counter)
check("transaction", counter.get().get("n"), 1)

attempts = []


@firestore.transactional
def conflicting(transaction, ref):
    snap = ref.get(transaction=transaction)
    attempts.append(1)
    if len(attempts) == 1:
        ref.update({"n": firestore.Increment(10)})  # outside the transaction: a conflict
    transaction.update(ref, {"n": snap.get("n") + 1})


conflicting(db.transaction(), counter)
check("conflict retried", (len(attempts), counter.get().get("n")), (2, 12))


@firestore.transactional
def query_in_transaction(transaction):
    docs = list(transaction.get(users.where(filter=FieldFilter("city", "==", "Paris"))))
    transaction.set(db.collection("summary").document("paris"), {"count": len(docs)})


query_in_transaction(db.transaction())
check("query in transaction", db.collection("summary").document("paris").get().get("count"), 2)


class Boom(Exception):
    pass


@firestore.transactional
def failing(transaction, ref):
    ref.get(transaction=transaction)
    transaction.update(ref, {"n": -1})
    raise Boom()


try:
    failing(db.transaction(), counter)
except Boom:
    pass
check("rolled back", counter.get().get("n"), 12)

ro = db.transaction(read_only=True)


@firestore.transactional
def read_only(transaction):
    return counter.get(transaction=transaction).get("n")


check("read-only transaction", read_only(ro), 12)

# --- Partitions ----------------------------------------------------------------------
check("partition query", len(list(db.collection_group("posts").get_partitions(3))), 1)

# --- recursive_delete: a kindless query lists the whole subtree ------------------------
tree = db.collection("trees").document("t1")
tree.set({"root": True})
tree.collection("a").document("x").set({"v": 1})
tree.collection("a").document("x").collection("b").document("y").set({"v": 2})
tree.collection("c").document("z").set({"v": 3})
deleted = db.recursive_delete(tree)
check("recursive_delete count", deleted, 4)
check("recursive_delete leaves nothing", [d.id for d in db.collection("trees").stream()], [])

# --- on_snapshot (Listen) ------------------------------------------------------------
class Recorder:
    """Collects on_snapshot callbacks: (sorted [(id, data)], [(change type, id)])."""

    def __init__(self):
        self.calls = []
        self.arrived = threading.Event()
        self.lock = threading.Lock()

    def __call__(self, docs, changes, read_time):
        entry = (sorted((d.id, d.to_dict()) for d in docs if d.exists),
                 sorted((c.type.name, c.document.id) for c in changes))
        with self.lock:
            self.calls.append(entry)
        self.arrived.set()

    def wait_for(self, n, timeout=10.0):
        """The n-th callback (1-based), or a timeout marker."""
        deadline = time.monotonic() + timeout
        while True:
            with self.lock:
                if len(self.calls) >= n:
                    return self.calls[n - 1]
                self.arrived.clear()
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self.arrived.wait(remaining):
                with self.lock:
                    return self.calls[n - 1] if len(self.calls) >= n else f"timeout ({len(self.calls)} callbacks)"


watched = db.collection("watchdocs").document("w1")
doc_watch = Recorder()
doc_watcher = watched.on_snapshot(doc_watch)
check("doc watch: missing document", doc_watch.wait_for(1), ([], []))
watched.set({"v": 1})
check("doc watch: created", doc_watch.wait_for(2), ([("w1", {"v": 1})], [("ADDED", "w1")]))
watched.update({"v": 2})
check("doc watch: modified", doc_watch.wait_for(3), ([("w1", {"v": 2})], [("MODIFIED", "w1")]))
watched.delete()
check("doc watch: deleted", doc_watch.wait_for(4), ([], [("REMOVED", "w1")]))
doc_watcher.unsubscribe()

wq = db.collection("watchq")
wq.document("q1").set({"v": 10})
wq.document("q2").set({"v": 5})
query_watch = Recorder()
query_watcher = wq.where(filter=FieldFilter("v", ">=", 10)).on_snapshot(query_watch)
check("query watch: initial", query_watch.wait_for(1), ([("q1", {"v": 10})], [("ADDED", "q1")]))
wq.document("q2").set({"v": 20})
check("query watch: enters", query_watch.wait_for(2), ([("q1", {"v": 10}), ("q2", {"v": 20})], [("ADDED", "q2")]))
wq.document("q2").update({"v": 21})
check("query watch: modified", query_watch.wait_for(3), ([("q1", {"v": 10}), ("q2", {"v": 21})], [("MODIFIED", "q2")]))
wq.document("q1").set({"v": 1})
check("query watch: leaves", query_watch.wait_for(4), ([("q2", {"v": 21})], [("REMOVED", "q1")]))
wq.document("q2").delete()
check("query watch: deleted", query_watch.wait_for(5), ([], [("REMOVED", "q2")]))
wq.document("q3").set({"v": 3})  # outside the query: no callback
wq.document("q4").set({"v": 40})
check("query watch: unrelated write skipped", query_watch.wait_for(6), ([("q4", {"v": 40})], [("ADDED", "q4")]))
query_watcher.unsubscribe()

if failures:
    print(f"{len(failures)} check(s) failed: {failures}")
    sys.exit(1)
print("grpc_client_check: all passed")
