"""Random writes (a fixed seed) on documents with nested maps: updates with random masks
(nested paths, paths that do not exist, a map replaced by a scalar and back), and field
transforms — increment, maximum, minimum, array union and removal — against fields of every
type, with integers, doubles, NaN, -0.0 and mixed arrays; each followed by a read of the
document. The hand-written cases probe one rule each; these cross the merge and transform
rules at scale."""
import random

from cases.steps import case, commit, get, name, seed, to_fields, to_value

CASES = []
rng = random.Random(26112026)

SCALARS = [None, True, float("nan"), -1.5, -1, 0, -0.0, 0.5, 1, 1.0, 2, 2**62, 2**63 - 1, -(2**63), 1e300, "", "a",
           {"timestampValue": "2020-01-01T00:00:00Z"}, {"bytesValue": "AAE="}]
ARRAYS = [[], [1], [1, 1.0, 2], ["a", None, float("nan")], [-0.0, 0], [{"k": 1}], [{"k": 1.0}, "a"]]
FIELDS = ["a", "b", "m.x", "m.y", "m.z.w", "n"]


def pick(pool):
    return pool[rng.randrange(len(pool))]


def value():
    r = rng.random()
    if r < 0.6:
        return pick(SCALARS)
    if r < 0.85:
        return pick(ARRAYS)
    return {"x": pick(SCALARS), "z": {"w": pick(SCALARS)}}


def start_doc():
    return {"a": value(), "b": pick(ARRAYS), "m": {"x": value(), "y": pick(SCALARS), "z": {"w": pick(SCALARS)}}}


def nested(path, v):
    """The fields of an update setting `path` (dotted) to `v`."""
    head, _, rest = path.partition(".")
    return {head: nested(rest, v) if rest else v}


def merge(a, b):
    for k, v in b.items():
        if isinstance(v, dict) and isinstance(a.get(k), dict) and not (len(v) == 1 and next(iter(v)).endswith("Value")):
            merge(a[k], v)
        else:
            a[k] = v
    return a


def transform():
    field = pick(FIELDS)
    kind = rng.choice(["increment", "maximum", "minimum", "appendMissingElements", "removeAllFromArray"])
    if kind in ("appendMissingElements", "removeAllFromArray"):
        return {"fieldPath": field, kind: {"values": [to_value(pick(SCALARS + [{"k": 1}])) for _ in range(rng.randrange(1, 4))]}}
    operand = pick([1, -1, 0, 2**62, 2**63 - 1, -(2**63), 0.5, -0.0, float("nan"), 1e308, -2.5])
    return {"fieldPath": field, kind: to_value(operand)}


for i in range(150):
    path = "w/d"
    fields, mask = {}, []
    for _ in range(rng.randrange(0, 4)):
        p = pick(FIELDS + ["q", "m.new"])
        if p in mask or any(p.startswith(m + ".") or m.startswith(p + ".") for m in mask):
            continue
        mask.append(p)
        if rng.random() < 0.8:  # a masked path without a value deletes it
            merge(fields, nested(p, value()))
    write = {"update": {"name": name(path), "fields": to_fields(fields)}}
    if rng.random() < 0.85:
        write["updateMask"] = {"fieldPaths": mask}
    transforms = []
    for _ in range(rng.randrange(0, 3)):
        t = transform()
        if t["fieldPath"] not in mask and all(t["fieldPath"] != o["fieldPath"] for o in transforms):
            transforms.append(t)
    if transforms:
        write["updateTransforms"] = transforms
    CASES.append(case(f"random write {i:03d}", seed({path: start_doc()}), commit([write]), get(path)))
