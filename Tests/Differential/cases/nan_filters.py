"""NaN in query filters: `not-in`, `!=`, `in`, `==` with NaN among the values or in the
field, next to numbers, null, strings, missing fields and arrays holding NaN; REST and gRPC."""
from cases.steps import DB, case, field_filter, query, rpc, run_query, seed, unary, composite

CASES = []
NAN = float("nan")
DATA = {"c/nan": {"v": NAN}, "c/one": {"v": 1}, "c/onef": {"v": 1.0}, "c/zero": {"v": 0}, "c/null": {"v": None},
        "c/str": {"v": "NaN"}, "c/none": {"w": 1}, "c/arr": {"v": [NAN, 1]}, "c/inf": {"v": float("inf")},
        "c/map": {"v": {"a": NAN}}}


def add(label, where, order=None):
    CASES.append(case(f"nan {label}", seed(DATA), run_query(query(where=where, order=order))))


for label, op, value in [
    ("not-in [NaN]", "NOT_IN", [NAN]), ("not-in [1, NaN]", "NOT_IN", [1, NAN]), ("not-in [NaN, null]", "NOT_IN", [NAN, None]),
    ("not-in [1]", "NOT_IN", [1]), ("not-in [0, 'NaN']", "NOT_IN", [0, "NaN"]), ("not-in [[NaN, 1]]", "NOT_IN", [[NAN, 1]]),
    ("not-equal NaN", "NOT_EQUAL", NAN), ("not-equal 1", "NOT_EQUAL", 1), ("not-equal [NaN, 1]", "NOT_EQUAL", [NAN, 1]),
    ("in [NaN]", "IN", [NAN]), ("in [NaN, 1]", "IN", [NAN, 1]), ("in [[NaN, 1]]", "IN", [[NAN, 1]]),
    ("equal NaN", "EQUAL", NAN), ("equal [NaN, 1]", "EQUAL", [NAN, 1]),
    ("array-contains NaN", "ARRAY_CONTAINS", NAN), ("array-contains-any [NaN]", "ARRAY_CONTAINS_ANY", [NAN]),
    ("less than NaN", "LESS_THAN", NAN), ("greater or equal NaN", "GREATER_THAN_OR_EQUAL", NAN),
    ("greater than -inf", "GREATER_THAN", float("-inf")),
    ("equal map NaN", "EQUAL", {"a": NAN}), ("not-equal map NaN", "NOT_EQUAL", {"a": NAN}), ("in [map NaN]", "IN", [{"a": NAN}]),
    ("not-in [map NaN]", "NOT_IN", [{"a": NAN}]), ("array-contains-any [NaN, 1]", "ARRAY_CONTAINS_ANY", [NAN, 1]),
]:
    add(label, field_filter("v", op, value))
add("not-in [NaN] ordered descending", field_filter("v", "NOT_IN", [NAN]), order=[("v", "DESCENDING")])
add("is not NaN", unary("v", "IS_NOT_NAN"))
add("is NaN", unary("v", "IS_NAN"))
add("is not NaN and not-in", composite("AND", unary("v", "IS_NOT_NAN"), field_filter("v", "NOT_IN", [1])))
add("or NaN and 1", composite("OR", unary("v", "IS_NAN"), field_filter("v", "EQUAL", 1)))
CASES.append(case("nan grpc not-in [NaN]", seed(DATA),
                  rpc("RunQuery", {"parent": DB + "/documents", "structuredQuery": query(where=field_filter("v", "NOT_IN", [NAN]))})))
CASES.append(case("nan grpc not-equal NaN", seed(DATA),
                  rpc("RunQuery", {"parent": DB + "/documents", "structuredQuery": query(where=field_filter("v", "NOT_EQUAL", NAN))})))
