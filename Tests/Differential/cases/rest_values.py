"""Values over REST: each written with PATCH and read back with GET (proto3 JSON both ways),
their limits, and the forms of timestamps, numbers, bytes, geopoints and references."""
from cases.steps import case, get, patch, ts, OWNER

CASES = []


def roundtrip(label, value, **kw):
    CASES.append(case(f"value {label}", patch("c/a", raw_fields={"v": value}, **kw), get("c/a")))


# Timestamps: fraction digits, offsets, the range, and what production truncates.
for label, text in [
    ("no fraction", "2024-01-02T03:04:05Z"), ("millis", "2024-01-02T03:04:05.123Z"),
    ("micros", "2024-01-02T03:04:05.123456Z"), ("nanos", "2024-01-02T03:04:05.123456789Z"),
    ("one digit", "2024-01-02T03:04:05.1Z"), ("seven digits", "2024-01-02T03:04:05.1234567Z"),
    ("nanos below a micro", "2024-01-02T03:04:05.000000999Z"), ("offset +01:00", "2024-01-02T03:04:05+01:00"),
    ("offset -05:30 with fraction", "2024-01-02T03:04:05.5-05:30"), ("offset +00:00", "2024-01-02T03:04:05+00:00"),
    ("offset -00:00", "2024-01-02T03:04:05-00:00"), ("lower-case z", "2024-01-02T03:04:05z"),
    ("lower-case t", "2024-01-02t03:04:05Z"), ("offset +0100", "2024-01-02T03:04:05+0100"),
    ("epoch", "1970-01-01T00:00:00Z"), ("before epoch", "1969-12-31T23:59:59.999999Z"),
    ("year 1", "0001-01-01T00:00:00Z"), ("year 9999", "9999-12-31T23:59:59.999999999Z"),
    ("year 0", "0000-12-31T23:59:59Z"), ("year 10000", "10000-01-01T00:00:00Z"),
    ("leap day", "2024-02-29T12:00:00Z"), ("not a leap day", "2023-02-29T12:00:00Z"),
    ("hour 24", "2024-01-02T24:00:00Z"), ("second 60", "2024-01-02T03:04:60Z"),
    ("no zone", "2024-01-02T03:04:05"), ("date only", "2024-01-02"), ("garbage", "yesterday"),
    ("space separator", "2024-01-02 03:04:05Z"), ("ten fraction digits", "2024-01-02T03:04:05.1234567891Z"),
]:
    roundtrip(f"timestamp {label}", ts(text))

# Integers and doubles.
for label, value in [
    ("int zero", {"integerValue": "0"}), ("int max", {"integerValue": "9223372036854775807"}),
    ("int min", {"integerValue": "-9223372036854775808"}), ("int over max", {"integerValue": "9223372036854775808"}),
    ("int as number", {"integerValue": 42}), ("int 2^53+1", {"integerValue": "9007199254740993"}),
    ("int with plus", {"integerValue": "+5"}), ("int with fraction", {"integerValue": "1.5"}),
    ("int leading zeros", {"integerValue": "007"}), ("int empty string", {"integerValue": ""}),
    ("int exponent", {"integerValue": "1e3"}), ("int as number with fraction", {"integerValue": 1.0}),
    ("double", {"doubleValue": 1.5}), ("double integral", {"doubleValue": 3}),
    ("double string", {"doubleValue": "2.25"}), ("double NaN", {"doubleValue": "NaN"}),
    ("double Infinity", {"doubleValue": "Infinity"}), ("double -Infinity", {"doubleValue": "-Infinity"}),
    ("double -0", {"doubleValue": -0.0}), ("double 1e300", {"doubleValue": 1e300}),
    ("double min subnormal", {"doubleValue": 5e-324}), ("double max", {"doubleValue": 1.7976931348623157e308}),
    ("double 0.1", {"doubleValue": 0.1}), ("double inf lower-case", {"doubleValue": "inf"}),
    ("double nan lower-case", {"doubleValue": "nan"}), ("double garbage", {"doubleValue": "x"}),
    ("double 1e400 overflow", {"doubleValue": "1e400"}), ("double large integral", {"doubleValue": 12345678912345678}),
]:
    roundtrip(label, value)

# Strings, bytes, booleans, null.
for label, value in [
    ("string empty", {"stringValue": ""}), ("string unicode", {"stringValue": "héllo ✓ 𝄞"}),
    ("string nul", {"stringValue": "a\u0000b"}), ("string newline", {"stringValue": "a\nb\t\"c\""}),
    ("bytes padded", {"bytesValue": "AP8="}), ("bytes unpadded", {"bytesValue": "AP8"}),
    ("bytes url-safe", {"bytesValue": "AP_-"}), ("bytes empty", {"bytesValue": ""}),
    ("bytes invalid", {"bytesValue": "!!!"}), ("bytes with whitespace", {"bytesValue": "AP 8="}),
    ("bool true", {"booleanValue": True}), ("bool false", {"booleanValue": False}),
    ("bool as string", {"booleanValue": "true"}), ("bool as number", {"booleanValue": 1}),
    ("null as zero", {"nullValue": 0}), ("null as name", {"nullValue": "NULL_VALUE"}),
    ("null as null", {"nullValue": None}), ("null as other", {"nullValue": "nothing"}),
    ("empty value", {}), ("two members", {"stringValue": "a", "integerValue": "1"}),
    ("unknown member", {"fooValue": 1}),
]:
    roundtrip(label, value)

# Geopoints, references, arrays and maps.
for label, value in [
    ("geopoint", {"geoPointValue": {"latitude": 48.85, "longitude": 2.35}}),
    ("geopoint empty", {"geoPointValue": {}}), ("geopoint latitude only", {"geoPointValue": {"latitude": 10}}),
    ("geopoint latitude 91", {"geoPointValue": {"latitude": 91, "longitude": 0}}),
    ("geopoint longitude -181", {"geoPointValue": {"latitude": 0, "longitude": -181}}),
    ("geopoint integral", {"geoPointValue": {"latitude": 1, "longitude": 2}}),
    ("geopoint -0", {"geoPointValue": {"latitude": -0.0, "longitude": -0.0}}),
    ("geopoint NaN", {"geoPointValue": {"latitude": "NaN", "longitude": 0}}),
    ("reference", {"referenceValue": "$DOCS/users/alice"}),
    ("reference to a collection", {"referenceValue": "$DOCS/users"}),
    ("reference to another project", {"referenceValue": "projects/other/databases/(default)/documents/users/alice"}),
    ("reference to another database", {"referenceValue": "projects/$P/databases/other/documents/users/alice"}),
    ("reference relative", {"referenceValue": "users/alice"}),
    ("reference empty", {"referenceValue": ""}),
    ("reference deep", {"referenceValue": "$DOCS/a/b/c/d/e/f"}),
    ("array empty", {"arrayValue": {}}), ("array empty values", {"arrayValue": {"values": []}}),
    ("array mixed", {"arrayValue": {"values": [{"integerValue": "1"}, {"stringValue": "x"}, {"nullValue": None}]}}),
    ("array nested", {"arrayValue": {"values": [{"arrayValue": {"values": [{"integerValue": "1"}]}}]}}),
    ("array in map in array", {"arrayValue": {"values": [{"mapValue": {"fields": {"a": {"arrayValue": {}}}}}]}}),
    ("map empty", {"mapValue": {}}), ("map nested", {"mapValue": {"fields": {"a": {"mapValue": {"fields": {"b": {"integerValue": "1"}}}}}}}),
    ("map empty key", {"mapValue": {"fields": {"": {"integerValue": "1"}}}}),
    ("map reserved key", {"mapValue": {"fields": {"__x__": {"integerValue": "1"}}}}),
    ("map dotted key", {"mapValue": {"fields": {"a.b": {"integerValue": "1"}}}}),
    ("vector", {"mapValue": {"fields": {"__type__": {"stringValue": "__vector__"},
                                         "value": {"arrayValue": {"values": [{"doubleValue": 1.0}, {"doubleValue": 2.5}]}}}}}),
    ("vector with ints", {"mapValue": {"fields": {"__type__": {"stringValue": "__vector__"},
                                                   "value": {"arrayValue": {"values": [{"integerValue": "1"}]}}}}}),
]:
    roundtrip(label, value)

# Limits: a string or bytes value over the per-value limit, a long field name, deep maps.
MiB = 1024 * 1024
for label, n in [("string 1 MiB - 89", MiB - 89), ("string 1 MiB - 88", MiB - 88), ("string 1 MiB", MiB),
                 ("string 1.5 MiB", MiB + MiB // 2)]:
    roundtrip(f"limit {label}", {"stringValue": {"$repeat": "x", "times": n}})
for label, n in [("bytes 1 MiB - 91", MiB - 91), ("bytes 1 MiB", MiB)]:
    roundtrip(f"limit {label}", {"bytesValue": {"$repeat": "AAAA", "times": n // 3}})
for n in (1500, 1501, 1499):
    CASES.append(case(f"limit field name of {n} bytes", patch("c/a", raw_fields={"f" * n: {"integerValue": "1"}}), get("c/a")))
for depth in (19, 20, 21):
    v = {"integerValue": "1"}
    for _ in range(depth):
        v = {"mapValue": {"fields": {"m": v}}}
    roundtrip(f"limit map depth {depth}", v)
CASES.append(case("limit request over 10 MiB",
                  patch("c/a", raw_fields={f"f{i}": {"stringValue": {"$repeat": "x", "times": MiB - 200}} for i in range(11)}), get("c/a")))
CASES.append(case("limit document over 1 MiB",
                  patch("c/a", raw_fields={"a": {"stringValue": {"$repeat": "x", "times": MiB // 2}}, "b": {"stringValue": {"$repeat": "y", "times": MiB // 2}}}),
                  get("c/a")))
CASES.append(case("limit document just under 1 MiB",
                  patch("c/a", raw_fields={"a": {"stringValue": {"$repeat": "x", "times": MiB // 2}}, "b": {"stringValue": {"$repeat": "y", "times": MiB // 2 - 200}}}),
                  get("c/a", query="mask.fieldPaths=none")))

# Field names.
for label, key in [("reserved", "__x__"), ("reserved prefix only", "__x"), ("dollar", "$dollar"), ("dash", "-dash"),
                   ("empty", ""), ("dotted", "a.b"), ("backquoted", "`a`"), ("unicode", "naïve"), ("space", "a b"),
                   ("double underscore inside", "a__b__"), ("__name__", "__name__")]:
    CASES.append(case(f"field name {label}", patch("c/a", raw_fields={key: {"integerValue": "1"}}), get("c/a")))
