"""Random structured queries (a fixed seed, so the corpus is stable) over one dataset whose
fields hold values of every type: filters of every operator against values of every type,
IN/NOT_IN and array membership, null and NaN tests, AND/OR, order-bys both ways, limits,
offsets and cursors. The hand-written cases of rest_queries probe one rule each; these
cross the type order, the equality of numbers and the matching rules at scale."""
import random

from cases.steps import case, composite, field_filter, query, run_query, seed, to_value, unary

CASES = []
rng = random.Random(20261126)

SCALARS = [None, False, True, float("nan"), -1.5, -1, 0, -0.0, 0.5, 1, 1.0, 2, 3.25, 2**53 + 1, float("inf"),
           "", "a", "ab", "b", "B", "é", "a\u0000",
           {"timestampValue": "2020-01-01T00:00:00Z"}, {"timestampValue": "2021-06-01T12:00:00.123456Z"},
           {"bytesValue": "AAE="}, {"bytesValue": "/w=="}, {"bytesValue": ""},
           {"geoPointValue": {"latitude": 1, "longitude": 2}}, {"geoPointValue": {"latitude": -1, "longitude": 5}},
           {"referenceValue": "$DOCS/r/d01"}, {"referenceValue": "$DOCS/r/d02/s/x"}]
COMPOUND = [[], [1], [1, 2], ["a", None], [[1]], {}, {"k": 1}, {"k": "a"}, {"a": 1, "b": 2}]
VALUES = SCALARS + COMPOUND


def pick(pool=VALUES):
    return pool[rng.randrange(len(pool))]


def document(i):
    doc = {}
    if rng.random() < 0.9:
        doc["v"] = pick()
    if rng.random() < 0.85:
        doc["n"] = rng.randrange(6)
    if rng.random() < 0.7:
        doc["t"] = [pick(SCALARS) for _ in range(rng.randrange(4))]
    return doc


DATA = {f"r/d{i:02d}": document(i) for i in range(36)}
F = field_filter


def add(q):
    CASES.append(case(f"random query {len(CASES):03d}", seed(DATA), run_query(q)))


def maybe_order_and_limit(field, where):
    order = [(field, rng.choice(["ASCENDING", "DESCENDING"]))] if rng.random() < 0.5 else None
    limit = rng.randrange(1, 6) if rng.random() < 0.3 else None
    offset = rng.randrange(1, 4) if rng.random() < 0.15 else None
    return query("r", where=where, order=order, limit=limit, offset=offset)


for _ in range(60):
    op = rng.choice(["LESS_THAN", "LESS_THAN_OR_EQUAL", "EQUAL", "NOT_EQUAL", "GREATER_THAN", "GREATER_THAN_OR_EQUAL"])
    add(maybe_order_and_limit("v", F("v", op, pick())))
for _ in range(24):
    op = rng.choice(["IN", "NOT_IN"])
    values = [pick(SCALARS + COMPOUND[:5]) for _ in range(rng.randrange(1, 5))]
    add(maybe_order_and_limit("v", F("v", op, values)))
for _ in range(20):
    if rng.random() < 0.5:
        add(maybe_order_and_limit("n", F("t", "ARRAY_CONTAINS", pick(SCALARS))))
    else:
        add(maybe_order_and_limit("n", F("t", "ARRAY_CONTAINS_ANY", [pick(SCALARS) for _ in range(rng.randrange(1, 4))])))
for op in ["IS_NULL", "IS_NOT_NULL", "IS_NAN", "IS_NOT_NAN"]:
    for field in ["v", "t"]:
        add(maybe_order_and_limit(field, unary(field, op)))
for _ in range(16):
    if rng.random() < 0.5:
        where = composite("AND", F("n", rng.choice(["GREATER_THAN", "LESS_THAN_OR_EQUAL"]), rng.randrange(6)), F("v", "EQUAL", pick()))
        add(maybe_order_and_limit("n", where))
    else:
        where = composite("OR", F("v", "EQUAL", pick()), F("v", "EQUAL", pick()), F("n", "EQUAL", rng.randrange(6)))
        add(maybe_order_and_limit("v", where) if rng.random() < 0.5 else query("r", where=where))
for _ in range(16):
    direction = rng.choice(["ASCENDING", "DESCENDING"])
    cursor = {"values": [{"integerValue": str(rng.randrange(6))}, to_value(pick())], "before": rng.random() < 0.5}
    q = query("r", order=[("n", direction), ("v", direction)], limit=rng.randrange(2, 8))
    q["startAt" if rng.random() < 0.6 else "endAt"] = cursor
    add(q)

# Aggregations over the same dataset: count (with an up_to), sum and avg of fields holding
# every type (integers that overflow, doubles, NaN, infinities, non-numbers), under random
# filters and limits.
from cases.steps import docs  # noqa: E402

for i in range(40):
    aggregations = []
    for j in range(rng.randrange(1, 4)):
        kind = rng.choice(["count", "sum", "avg"])
        if kind == "count":
            aggregations.append({"alias": f"a{j}", "count": {"upTo": str(rng.randrange(1, 40))} if rng.random() < 0.3 else {}})
        else:
            aggregations.append({"alias": f"a{j}", kind: {"field": {"fieldPath": rng.choice(["v", "n", "t", "v"])}}})
    where = None
    if rng.random() < 0.6:
        where = F(rng.choice(["n", "v"]), rng.choice(["GREATER_THAN", "LESS_THAN_OR_EQUAL", "NOT_EQUAL", "EQUAL"]), pick())
    q = query("r", where=where, limit=rng.randrange(1, 30) if rng.random() < 0.3 else None)
    CASES.append(case(f"random aggregation {i:03d}", seed(DATA),
                      docs("POST", ":runAggregationQuery", {"structuredAggregationQuery": {"structuredQuery": q, "aggregations": aggregations}})))

# Orders over several fields (mixed types in each), with cursors of every type on them, both
# directions, inequality filters on the first order field, and offsets.
for i in range(40):
    fields = rng.sample(["v", "n", "t"], rng.randrange(1, 4))
    direction = [rng.choice(["ASCENDING", "DESCENDING"]) for _ in fields]
    order = list(zip(fields, direction))
    if rng.random() < 0.4:
        order.append(("__name__", rng.choice(["ASCENDING", "DESCENDING"])))
    where = F(fields[0], rng.choice(["GREATER_THAN", "LESS_THAN", "NOT_EQUAL", "GREATER_THAN_OR_EQUAL"]), pick()) if rng.random() < 0.4 else None
    q = query("r", where=where, order=order, limit=rng.randrange(1, 10) if rng.random() < 0.7 else None,
              offset=rng.randrange(1, 3) if rng.random() < 0.2 else None)
    values = []
    for f, _ in order[:rng.randrange(1, len(order) + 1)]:
        values.append({"referenceValue": f"$DOCS/r/d{rng.randrange(36):02d}"} if f == "__name__" else to_value(pick()))
    if rng.random() < 0.8:
        q["startAt"] = {"values": values, "before": rng.random() < 0.5}
    if rng.random() < 0.4:
        q["endAt"] = {"values": [to_value(pick())], "before": rng.random() < 0.5}
    CASES.append(case(f"random ordered query {i:03d}", seed(DATA), run_query(q)))
