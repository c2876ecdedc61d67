"""Hearth's export, imported by the official emulator, reads back identically.

Given two servers holding the same data source (Hearth with the documents; the official
emulator empty), asks Hearth to export project P through its endpoint, asks the official
emulator to import that export, then reads every document of both through REST (a kindless
all-descendants query) and compares them value by value. Then the official emulator exports
the data back and Hearth imports that into project P2, which must read the same again.
Standard library only.

usage: export_official_check.py HEARTH_HOST OFFICIAL_HOST PROJECT WORKDIR
"""
import http.client
import json
import math
import os
import sys
from datetime import datetime, timezone

HEARTH, OFFICIAL, PROJECT, WORK = sys.argv[1:5]


def call(host, method, path, body=None):
    conn = http.client.HTTPConnection(host, timeout=120)
    conn.request(method, path, body=json.dumps(body) if body is not None else None,
                 headers={"Content-Type": "application/json", "Authorization": "Bearer owner"})
    r = conn.getresponse()
    data = r.read()
    conn.close()
    if r.status != 200:
        sys.exit(f"export-official: {method} {host}{path} answered {r.status}: {data[:500]!r}")
    return json.loads(data) if data.strip() else None


def documents(host, project):
    rows = call(host, "POST", f"/v1/projects/{project}/databases/(default)/documents:runQuery",
                {"structuredQuery": {"from": [{"allDescendants": True}]}})
    out = {}
    for r in rows:
        if "document" in r:
            d = r["document"]
            out[d["name"].split("/documents/", 1)[1]] = normalize_fields(d.get("fields", {}))
    return out


def normalize_fields(fields):
    return {k: normalize(v) for k, v in fields.items()}


def timestamp(text):
    # 0, 3, 6 or 9 fraction digits; compared at microseconds (what the format holds).
    main, _, frac = text.rstrip("Z").partition(".")
    dt = datetime.strptime(main, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc)
    seconds = (dt - datetime(1970, 1, 1, tzinfo=timezone.utc)) // __import__("datetime").timedelta(seconds=1)
    return ("ts", seconds, int((frac + "000000")[:6]))


def double(v):
    f = float(v) if not isinstance(v, str) else float({"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}[v])
    return ("double", "nan" if math.isnan(f) else repr(f))


def normalize(v):
    (kind, x), = v.items()
    if kind == "nullValue":
        return ("null",)
    if kind == "booleanValue":
        return ("bool", x)
    if kind == "integerValue":
        return ("int", int(x))
    if kind == "doubleValue":
        return double(x)
    if kind == "timestampValue":
        return timestamp(x)
    if kind == "stringValue":
        return ("string", x)
    if kind == "bytesValue":
        return ("bytes", x)
    if kind == "referenceValue":
        return ("ref", x)
    if kind == "geoPointValue":
        return ("geo", float(x.get("latitude", 0)), float(x.get("longitude", 0)))
    if kind == "arrayValue":
        return ("array", tuple(normalize(e) for e in x.get("values", [])))
    if kind == "mapValue":
        return ("map", tuple(sorted(normalize_fields(x.get("fields", {})).items())))
    sys.exit(f"export-official: unknown value kind {kind}")


def compare(label, a, b):
    if a == b:
        print(f"export-official: {label}: {len(a)} documents identical")
        return
    missing = sorted(set(a) - set(b))[:5]
    extra = sorted(set(b) - set(a))[:5]
    differ = [k for k in sorted(set(a) & set(b)) if a[k] != b[k]][:3]
    details = [f"missing {missing}" if missing else "", f"extra {extra}" if extra else ""]
    details += [f"{k}: {a[k]} != {b[k]}" for k in differ]
    sys.exit(f"export-official: {label} differ: " + "; ".join(d for d in details if d))


ours = documents(HEARTH, PROJECT)
if not ours:
    sys.exit("export-official: Hearth holds no documents to export")
def export(host, folder):
    """Exports PROJECT's default database from `host` into WORK/folder; the overall file's path."""
    os.makedirs(os.path.join(WORK, folder), exist_ok=True)
    call(host, "POST", f"/emulator/v1/projects/{PROJECT}:export",
         {"database": f"projects/{PROJECT}/databases/(default)", "export_directory": os.path.join(WORK, folder),
          "export_name": "firestore_export"})
    return os.path.join(WORK, folder, "firestore_export", "firestore_export.overall_export_metadata")


def import_into(host, project, overall):
    call(host, "POST", f"/emulator/v1/projects/{project}:import",
         {"database": f"projects/{project}/databases/(default)", "export_directory": overall})


import_into(OFFICIAL, PROJECT, export(HEARTH, "hearth"))
theirs = documents(OFFICIAL, PROJECT)
compare("Hearth's export imported by the official emulator", ours, theirs)

import_into(HEARTH, f"{PROJECT}-back", export(OFFICIAL, "official"))
returned = {k: v for k, v in documents(HEARTH, f"{PROJECT}-back").items()}
# References keep the project they were written with (the import does not rewrite them).
compare("the official emulator's export of it imported by Hearth", ours, returned)
