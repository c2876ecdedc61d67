"""Edges found by trying Hearth as a new user would against the official emulator: batchWrite
with an invalid write or a write without a name, a commit writing one document twice (and
set/delete/set), repeated query parameters."""
from cases.steps import case, commit, docs, get, http, seed, update, delete_write, name, OWNER

CASES = []


def add(label, *steps):
    CASES.append(case(f"gaps {label}", *steps))


add("batchWrite with an invalid field name",
    docs("POST", ":batchWrite", {"writes": [update("c/a", {"x": 1}),
                                            {"update": {"name": name("c/b"), "fields": {"__bad__": {"integerValue": "1"}}}}]},
         auth=OWNER),
    get("c/a"))
add("batchWrite with a write naming no document",
    docs("POST", ":batchWrite", {"writes": [update("c/a", {"x": 1}), {"update": {"fields": {"x": {"integerValue": "1"}}}}]},
         auth=OWNER))
add("commit writing one document twice", commit([update("c/a", {"x": 1}), update("c/a", {"x": 2})]), get("c/a"))
add("commit set delete set", commit([update("c/a", {"x": 1}), delete_write("c/a"), update("c/a", {"x": 3})]), get("c/a"))
add("repeated pageSize", seed({"c/a": {"x": 1}, "c/b": {"x": 2}, "c/c": {"x": 3}}),
    http("GET", "$V1/c?pageSize=1&pageSize=2", auth=OWNER))
add("repeated mask", seed({"c/a": {"x": 1, "y": 2, "z": 3}}),
    http("GET", "$V1/c/a?mask.fieldPaths=x&mask.fieldPaths=y", auth=OWNER))
