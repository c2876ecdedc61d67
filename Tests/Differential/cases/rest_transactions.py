"""Transactions over REST: begin, read, commit, rollback, their modes and their errors."""
from cases.steps import case, commit, http, delete_write, docs, get, name, query, run_query, seed, update

CASES = []


def add(label, *steps):
    CASES.append(case(label, *steps))


def begin(options=None, save="tx"):
    return docs("POST", ":beginTransaction", {} if options is None else {"options": options}, save={save: "transaction"})


def rollback(tx="${tx}"):
    return docs("POST", ":rollback", {"transaction": tx})


RW = {"readWrite": {}}
RO = {"readOnly": {}}
add("tx begin default", begin())
add("tx begin read-write", begin(RW))
add("tx begin read-only", begin(RO))
add("tx begin read-only at readTime", begin({"readOnly": {"readTime": "2001-01-01T00:00:00Z"}}))
add("tx begin both modes", docs("POST", ":beginTransaction", {"options": {"readOnly": {}, "readWrite": {}}}))
add("tx begin retry unknown", docs("POST", ":beginTransaction", {"options": {"readWrite": {"retryTransaction": "AAAAAAAA"}}}))
add("tx begin retry rolled back", begin(), rollback(), begin({"readWrite": {"retryTransaction": "${tx}"}}, save="tx2"),
    commit([update("c/a", {"x": 1})], transaction="${tx2}"))
add("tx begin retry committed", begin(), commit([], transaction="${tx}"), begin({"readWrite": {"retryTransaction": "${tx}"}}, save="tx2"))
add("tx begin retry live", begin(), begin({"readWrite": {"retryTransaction": "${tx}"}}, save="tx2"), commit([], transaction="${tx}"))
add("tx begin retry empty", docs("POST", ":beginTransaction", {"options": {"readWrite": {"retryTransaction": ""}}}))
add("tx begin unknown field", docs("POST", ":beginTransaction", {"bogus": 1}))
add("tx commit empty", begin(), commit([], transaction="${tx}"))
add("tx commit write", begin(), commit([update("c/a", {"x": 1})], transaction="${tx}"), get("c/a"))
add("tx commit twice", begin(), commit([update("c/a", {"x": 1})], transaction="${tx}"), commit([update("c/a", {"x": 2})], transaction="${tx}"))
add("tx commit empty twice", begin(), commit([], transaction="${tx}"), commit([], transaction="${tx}"))
add("tx rollback then commit", begin(), rollback(), commit([update("c/a", {"x": 1})], transaction="${tx}"))
add("tx rollback twice", begin(), rollback(), rollback())
add("tx rollback after commit", begin(), commit([], transaction="${tx}"), rollback())
add("tx rollback unknown", rollback("AAAAAAAA"))
add("tx rollback empty", docs("POST", ":rollback", {}))
add("tx rollback not base64", rollback("!!"))
add("tx read then commit", seed({"c/a": {"x": 1}}), begin(), get("c/a", "transaction=${tx}"), commit([update("c/a", {"x": 2})], transaction="${tx}"), get("c/a"))
add("tx read missing then create", begin(), get("c/a", "transaction=${tx}"), commit([update("c/a", {"x": 2}, exists=False)], transaction="${tx}"))
add("tx update missing", begin(), commit([update("c/a", {"x": 2}, exists=True)], transaction="${tx}"))
add("tx create existing", seed({"c/a": {"x": 1}}), begin(), commit([update("c/a", {"x": 2}, exists=False)], transaction="${tx}"))
add("tx delete missing with exists", begin(), commit([delete_write("c/a", exists=True)], transaction="${tx}"))
add("tx same document twice", begin(), commit([update("c/a", {"x": 1}), update("c/a", {"y": 2})], transaction="${tx}"), get("c/a"))
add("tx write in read-only", begin(RO), commit([update("c/a", {"x": 1})], transaction="${tx}"))
add("tx empty commit in read-only", begin(RO), commit([], transaction="${tx}"))
add("tx rollback read-only", begin(RO), rollback())
add("tx read in read-only at readTime", seed({"c/a": {"x": 1}}), begin({"readOnly": {"readTime": "2001-01-01T00:00:00Z"}}),
    get("c/a", "transaction=${tx}"))
add("tx read-only readTime now sees data", seed({"c/a": {"x": 1}}, save={"t": "commitTime"}),
    begin({"readOnly": {"readTime": "${t}"}}), get("c/a", "transaction=${tx}"), docs("POST", ":batchGet", {"documents": [name("c/a")], "transaction": "${tx}"}))
add("tx read-only sees its snapshot", seed({"c/a": {"x": 1}}), begin(RO), get("c/a", "transaction=${tx}"),
    commit([update("c/a", {"x": 2})]), get("c/a", "transaction=${tx}"))
add("tx query in transaction", seed({"c/a": {"x": 1}}), begin(), run_query(query(), transaction="${tx}"))
add("tx query new transaction returns id", seed({"c/a": {"x": 1}}), run_query(query(), newTransaction={}, save={"tx": "0.transaction"}),
    commit([update("c/b", {"y": 1})], transaction="${tx}"))
add("tx query new transaction on empty result", run_query(query(), newTransaction={"readWrite": {}}, save={"tx": "0.transaction"}),
    commit([update("c/b", {"y": 1})], transaction="${tx}"))
add("tx aggregation in transaction", seed({"c/a": {"x": 1}}), begin(),
    docs("POST", ":runAggregationQuery", {"structuredAggregationQuery": {"structuredQuery": query(), "aggregations": [{"alias": "n", "count": {}}]},
                                          "transaction": "${tx}"}))
add("tx aggregation with readTime in transaction", seed({"c/a": {"x": 1}}), begin(),
    docs("POST", ":runAggregationQuery", {"structuredAggregationQuery": {"structuredQuery": query(), "aggregations": [{"alias": "n", "count": {}}]},
                                          "transaction": "${tx}", "readTime": "2001-01-01T00:00:00Z"}))
add("tx get with transaction and readTime", seed({"c/a": {"x": 1}}), begin(), get("c/a", "transaction=${tx}&readTime=2001-01-01T00:00:00Z", timeout=3))
add("tx batchGet in transaction", seed({"c/a": {"x": 1}}), begin(), docs("POST", ":batchGet", {"documents": [name("c/a")], "transaction": "${tx}"}))
add("tx batchGet with closed transaction", begin(), rollback(), docs("POST", ":batchGet", {"documents": [name("c/a")], "transaction": "${tx}"}))
add("tx query with closed transaction", begin(), commit([], transaction="${tx}"), run_query(query(), transaction="${tx}"))
add("tx list documents in transaction", seed({"c/a": {"x": 1}}), begin(), get("c", "transaction=${tx}", timeout=3))
add("tx two transactions", begin(save="t1"), begin(save="t2"), commit([update("c/a", {"x": 1})], transaction="${t1}"),
    commit([update("c/b", {"x": 1})], transaction="${t2}"))
add("tx retry of committed", begin(save="t1"), commit([], transaction="${t1}"),
    docs("POST", ":beginTransaction", {"options": {"readWrite": {"retryTransaction": "${t1}"}}}))
add("tx in other database", begin(), http("POST", "/v1/projects/$P/databases/other/documents:commit", {"transaction": "${tx}", "writes": []}))
