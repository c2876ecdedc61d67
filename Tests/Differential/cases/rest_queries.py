"""runQuery and runAggregationQuery over REST: filters, orders, cursors, offsets, limits,
collection groups, projections, validation errors and the shape of the streamed answer."""
from cases.steps import (case, composite, docs, field_filter, name, query, ref, run_query, seed, to_value, unary,
                         OWNER)

CASES = []
DATA = {
    "c/a": {"n": 1, "s": "x", "t": ["p", "q"], "m": {"k": 1}},
    "c/b": {"n": 2, "s": "y", "t": ["q"], "m": {"k": 2}},
    "c/c": {"n": 3.5, "s": "z", "t": [], "z": None},
    "c/d": {"n": float("nan"), "s": "x"},
    "c/e": {"s": "w"},
    "c/a/c/f": {"n": 9},
    "o/g": {"n": 1},
}


def add(label, *steps):
    CASES.append(case(label, seed(DATA), *steps))


def q(label, structured, **kw):
    add(f"query {label}", run_query(structured, **kw))


F = field_filter
# Filters.
for op, value in [("EQUAL", 1), ("EQUAL", 1.0), ("NOT_EQUAL", 1), ("LESS_THAN", 3), ("LESS_THAN_OR_EQUAL", 2),
                  ("GREATER_THAN", 1), ("GREATER_THAN_OR_EQUAL", 3.5), ("EQUAL", "x"), ("GREATER_THAN", "x"),
                  ("EQUAL", None), ("NOT_EQUAL", None), ("LESS_THAN", None), ("EQUAL", float("nan")),
                  ("GREATER_THAN", float("nan")), ("NOT_EQUAL", float("nan"))]:
    q(f"filter n {op} {value!r}", query(where=F("n", op, value)))
for op, value in [("ARRAY_CONTAINS", "q"), ("ARRAY_CONTAINS_ANY", ["p", "zz"]), ("IN", [1, 2]), ("IN", ["x", 3.5]),
                  ("NOT_IN", [1, 2]), ("NOT_IN", [float("nan")]), ("NOT_IN", [None]), ("IN", [None]),
                  ("IN", [float("nan")]), ("ARRAY_CONTAINS", None), ("IN", []), ("IN", 1), ("NOT_IN", []),
                  ("ARRAY_CONTAINS_ANY", [])]:
    fieldname = "t" if op.startswith("ARRAY") else "n"
    q(f"filter {fieldname} {op} {value!r}", query(where=F(fieldname, op, value)))
for op in ["IS_NULL", "IS_NOT_NULL", "IS_NAN", "IS_NOT_NAN"]:
    q(f"unary {op}", query(where=unary("n", op)))
q("unary on __name__", query(where=unary("__name__", "IS_NULL")))
q("unary unknown op", query(where={"unaryFilter": {"field": {"fieldPath": "n"}, "op": "IS_EMPTY"}}))
q("filter unknown op", query(where={"fieldFilter": {"field": {"fieldPath": "n"}, "op": "LIKE", "value": to_value(1)}}))
q("filter without value", query(where={"fieldFilter": {"field": {"fieldPath": "n"}, "op": "EQUAL"}}))
q("filter empty field path", query(where=F("", "EQUAL", 1)))
q("filter reserved field", query(where=F("__x__", "EQUAL", 1)))
q("filter nested field", query(where=F("m.k", "EQUAL", 2)))
q("filter backquoted field", query(where=F("`m`.`k`", "GREATER_THAN", 0)))
q("filter map equality", query(where=F("m", "EQUAL", {"k": 1})))
q("and", query(where=composite("AND", F("s", "EQUAL", "x"), F("n", "EQUAL", 1))))
q("and empty", query(where=composite("AND")))
q("or", query(where=composite("OR", F("s", "EQUAL", "y"), F("n", "EQUAL", 3.5))))
q("or empty", query(where=composite("OR")))
q("or nested and", query(where=composite("OR", composite("AND", F("s", "EQUAL", "x"), F("n", "LESS_THAN", 2)), F("s", "EQUAL", "w"))))
q("composite unknown op", query(where={"compositeFilter": {"op": "XOR", "filters": []}}))
q("two inequalities", query(where=composite("AND", F("n", "GREATER_THAN", 0), F("s", "LESS_THAN", "z"))))
q("two not-equal", query(where=composite("AND", F("n", "NOT_EQUAL", 1), F("s", "NOT_EQUAL", "x"))))
q("not-in with in", query(where=composite("AND", F("n", "NOT_IN", [1]), F("s", "IN", ["x"]))))
q("in 31 values", query(where=F("n", "IN", list(range(31)))))
q("not-in 11 values", query(where=F("n", "NOT_IN", list(range(11)))))
q("disjunctions 31", query(where=composite("OR", *[F("n", "EQUAL", i) for i in range(31)])))
q("filters 101", query(where=composite("AND", *[F(f"f{i}", "EQUAL", i) for i in range(101)])))

# Orders, cursors, offsets, limits.
q("order n", query(order=["n"]))
q("order n desc", query(order=[("n", "DESCENDING")]))
q("order s then n desc", query(order=["s", ("n", "DESCENDING")]))
q("order unknown direction", query(order=[("n", "SIDEWAYS")]))
q("order name", query(order=["__name__"]))
q("order name desc", query(order=[("__name__", "DESCENDING")]))
q("order name then n", query(order=["__name__", "n"]))
q("order duplicate", query(order=["n", "n"]))
q("order equality field", query(where=F("s", "EQUAL", "x"), order=["s"]))
q("order inequality implicit", query(where=F("n", "GREATER_THAN", 1)))
q("order inequality second", query(where=F("n", "GREATER_THAN", 1), order=["s"]))
q("order 101", query(order=[f"f{i}" for i in range(101)]))
q("limit 2", query(order=["n"], limit=2))
q("limit 0", query(limit=0))
q("limit negative", query(limit=-1))
q("limit wrapper object", {**query(), "limit": {"value": 2}})
q("limit string", {**query(), "limit": "2"})
q("offset 1", query(order=["n"], offset=1))
q("offset beyond", query(offset=10))
q("offset negative", query(offset=-1))
q("offset and limit", query(order=["s"], offset=1, limit=2))
q("startAt value", query(order=["n"], start={"values": [to_value(2)]}))
q("startAfter value", query(order=["n"], start={"values": [to_value(2)], "before": False}))
q("endAt value", query(order=["n"], end={"values": [to_value(2)]}))
q("endBefore value", query(order=["n"], end={"values": [to_value(2)], "before": True}))
q("cursor without order", query(start={"values": [to_value("c")]}))
q("cursor name without order", query(start={"values": [ref("c/b")]}))
q("cursor name of another collection", query(order=["__name__"], start={"values": [ref("o/g")]}))
q("cursor name of a subcollection", query(order=["__name__"], start={"values": [ref("c/a/c/f")]}))
q("cursor name as string", query(order=["__name__"], start={"values": [to_value("b")]}))
q("cursor too many values", query(order=["n"], start={"values": [to_value(1), to_value(2), to_value(3)]}))
q("cursor empty values", query(order=["n"], start={"values": []}))
q("cursor two values", query(order=["s", "n"], start={"values": [to_value("x"), to_value(1)], "before": False}))
q("cursor on inequality", query(where=F("n", "GREATER_THAN", 0), start={"values": [to_value(2)]}))

# Names, collections, groups, projections.
q("filter name equal", query(where=F("__name__", "EQUAL", {"referenceValue": name("c/b")})))
q("filter name in", query(where=F("__name__", "IN", [{"referenceValue": name("c/b")}, {"referenceValue": name("c/c")}])))
q("filter name other collection", query(where=F("__name__", "EQUAL", {"referenceValue": name("o/g")})))
q("filter name as string", query(where=F("__name__", "EQUAL", "c/b")))
q("filter name greater", query(where=F("__name__", "GREATER_THAN", {"referenceValue": name("c/b")})))
q("filter name array-contains", query(where=F("__name__", "ARRAY_CONTAINS", {"referenceValue": name("c/b")})))
q("inequality with name equality", query(where=composite("AND", F("n", "GREATER_THAN", 0), F("__name__", "EQUAL", {"referenceValue": name("c/b")}))))
q("no from", {"where": F("n", "EQUAL", 1)})
q("no from no filter", {})
q("empty from", {"from": []})
q("two from", {"from": [{"collectionId": "c"}, {"collectionId": "o"}]})
q("empty collection id", query(collection=""))
q("reserved collection id", query(collection="__x__"))
q("collection id with slash", query(collection="c/a"))
q("collection group", query(collection="c", all_descendants=True))
q("collection group ordered", query(collection="c", all_descendants=True, order=[("n", "DESCENDING")]))
q("select", query(select=["s"]))
q("select name only", query(select=["__name__"]))
q("select empty", query(select=[]))
q("select nested", query(select=["m.k"]))
q("select reserved", query(select=["__x__"]))
add("query under a document", docs("POST", "/c/a:runQuery", {"structuredQuery": query()}))
add("query under a missing document", docs("POST", "/c/zz:runQuery", {"structuredQuery": query(collection="c")}))
add("query under a collection path", docs("POST", "/c:runQuery", {"structuredQuery": query()}))
add("query group under a document", docs("POST", "/c/a:runQuery", {"structuredQuery": query(all_descendants=True)}))
q("readTime", query(), readTime="1970-01-01T00:00:01Z")
q("newTransaction", query(order=["n"], limit=1), newTransaction={})
q("newTransaction empty result", query(where=F("n", "EQUAL", 99)), newTransaction={})
q("transaction and readTime", query(), newTransaction={}, readTime="2001-01-01T00:00:00Z")
q("unknown transaction", query(), transaction="AAAAAAAA")
add("query unknown field", docs("POST", ":runQuery", {"structuredQuery": {**query(), "bogus": 1}}))
add("query no structuredQuery", docs("POST", ":runQuery", {}))
add("query explainOptions", docs("POST", ":runQuery", {"structuredQuery": query(), "explainOptions": {"analyze": False}}))


# Aggregations.
def agg(label, aggregations, structured=None, **kw):
    body = {"structuredAggregationQuery": {"structuredQuery": structured or query(), "aggregations": aggregations}}
    body.update(kw)
    add(f"aggregate {label}", docs("POST", ":runAggregationQuery", body))


agg("count", [{"alias": "n", "count": {}}])
agg("count up to", [{"alias": "n", "count": {"upTo": "2"}}])
agg("count up to zero", [{"alias": "n", "count": {"upTo": "0"}}])
agg("count up to negative", [{"alias": "n", "count": {"upTo": "-1"}}])
agg("sum", [{"alias": "s", "sum": {"field": {"fieldPath": "n"}}}])
agg("avg", [{"alias": "a", "avg": {"field": {"fieldPath": "n"}}}])
agg("sum of strings", [{"alias": "s", "sum": {"field": {"fieldPath": "s"}}}])
agg("avg empty", [{"alias": "a", "avg": {"field": {"fieldPath": "nothing"}}}])
agg("sum ints", [{"alias": "s", "sum": {"field": {"fieldPath": "n"}}}], query(where=F("n", "LESS_THAN", 3)))
agg("three", [{"alias": "c", "count": {}}, {"alias": "s", "sum": {"field": {"fieldPath": "n"}}}, {"alias": "a", "avg": {"field": {"fieldPath": "n"}}}])
agg("no alias", [{"count": {}}])
agg("duplicate alias", [{"alias": "x", "count": {}}, {"alias": "x", "count": {}}])
agg("alias with space", [{"alias": "bad alias!", "count": {}}])
agg("six", [{"alias": f"a{i}", "count": {}} for i in range(6)])
agg("none", [])
agg("no operator", [{"alias": "x"}])
agg("with limit", [{"alias": "n", "count": {}}], query(limit=2))
agg("with offset", [{"alias": "n", "count": {}}], query(offset=2))
agg("with cursor", [{"alias": "n", "count": {}}], query(order=["n"], start={"values": [to_value(2)]}))
agg("readTime", [{"alias": "n", "count": {}}], readTime="1970-01-01T00:00:01Z")
agg("newTransaction", [{"alias": "n", "count": {}}], newTransaction={})
agg("in read-only transaction at readTime", [{"alias": "n", "count": {}}],
    newTransaction={"readOnly": {"readTime": "2001-01-01T00:00:00Z"}})
