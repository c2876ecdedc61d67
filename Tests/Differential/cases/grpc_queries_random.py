"""Random queries and aggregations over gRPC (a fixed seed): the same kind of dataset and
queries as rest_queries_random, answered through the official client's messages, so the
protobuf encoding of every value type in results (NaN, -0.0, int64 edges, bytes,
references, arrays and nested maps) and of streamed RunQuery answers is compared too."""
import random

from cases.steps import DB, case, composite, field_filter, query, rpc, to_value, unary, update

CASES = []
rng = random.Random(2611)
DOCS = DB + "/documents"
SCALARS = [None, False, True, float("nan"), -1.5, -1, 0, -0.0, 1, 1.0, 2**63 - 1, -(2**63), float("-inf"), 1e-300,
           "", "a", "Zé", {"timestampValue": "2020-01-01T00:00:00.000001Z"}, {"bytesValue": "AAE="},
           {"geoPointValue": {"latitude": -90, "longitude": 180}}, {"referenceValue": "$DOCS/r/d01"}]
VALUES = SCALARS + [[], [1, "a"], [None, 2], {}, {"k": {"j": [1.5]}}]


def pick(pool=VALUES):
    return pool[rng.randrange(len(pool))]


DATA = {}
for i in range(24):
    doc = {"v": pick(), "n": rng.randrange(5)}
    if rng.random() < 0.5:
        doc["t"] = [pick(SCALARS) for _ in range(rng.randrange(3))]
    DATA[f"r/d{i:02d}"] = doc
SEED = rpc("Commit", {"database": DB, "writes": [update(p, f) for p, f in DATA.items()]})
F = field_filter

for i in range(60):
    r = rng.random()
    if r < 0.5:
        where = F("v", rng.choice(["LESS_THAN", "EQUAL", "NOT_EQUAL", "GREATER_THAN_OR_EQUAL", "IN", "NOT_IN"]),
                  pick() if rng.random() < 0.7 else [pick(SCALARS) for _ in range(2)])
        if where["fieldFilter"]["op"] in ("IN", "NOT_IN") and "arrayValue" not in where["fieldFilter"]["value"]:
            where["fieldFilter"]["value"] = to_value([pick(SCALARS)])
    elif r < 0.7:
        where = F("t", rng.choice(["ARRAY_CONTAINS", "ARRAY_CONTAINS_ANY"]), pick(SCALARS) if rng.random() < 0.5 else [pick(SCALARS)])
        if where["fieldFilter"]["op"] == "ARRAY_CONTAINS_ANY" and "arrayValue" not in where["fieldFilter"]["value"]:
            where["fieldFilter"]["value"] = to_value([pick(SCALARS)])
    elif r < 0.85:
        where = unary("v", rng.choice(["IS_NULL", "IS_NAN", "IS_NOT_NULL", "IS_NOT_NAN"]))
    else:
        where = composite(rng.choice(["AND", "OR"]), F("n", "GREATER_THAN", rng.randrange(5)), F("v", "EQUAL", pick()))
    q = query("r", where=where, limit=rng.randrange(1, 8) if rng.random() < 0.4 else None)
    if rng.random() < 0.3:
        q["orderBy"] = [{"field": {"fieldPath": "n"}, "direction": rng.choice(["ASCENDING", "DESCENDING"])}]
    CASES.append(case(f"grpc random query {i:03d}", SEED, rpc("RunQuery", {"parent": DOCS, "structuredQuery": q})))
for i in range(20):
    aggregations = [{"alias": "c", "count": {}}, {"alias": "s", "sum": {"field": {"fieldPath": rng.choice(["v", "n"])}}},
                    {"alias": "a", "avg": {"field": {"fieldPath": rng.choice(["v", "n"])}}}]
    q = query("r", where=F("n", rng.choice(["GREATER_THAN", "LESS_THAN"]), rng.randrange(5)) if rng.random() < 0.6 else None)
    CASES.append(case(f"grpc random aggregation {i:03d}", SEED,
                      rpc("RunAggregationQuery", {"parent": DOCS, "structuredAggregationQuery": {"structuredQuery": q, "aggregations": aggregations}})))
