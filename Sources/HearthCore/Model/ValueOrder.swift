import Foundation

/// Firestore's total order of values and its equality (docs/semantics.md#value-order, #equality).
extension Value {
    /// -1, 0 or 1 by the total order across and within types. NaN equals NaN and is the
    /// lowest number; integers and doubles compare exactly; `-0.0 == 0.0`; strings by UTF-8.
    public static func compare(_ a: Value, _ b: Value) -> Int {
        let ta = a.typeOrder, tb = b.typeOrder
        if ta != tb { return ta < tb ? -1 : 1 }
        switch (a, b) {
        case (.null, .null): return 0
        case let (.boolean(x), .boolean(y)): return x == y ? 0 : (x ? 1 : -1)
        case let (.integer(x), .integer(y)): return x == y ? 0 : (x < y ? -1 : 1)
        case let (.double(x), .double(y)): return compareDoubles(x, y)
        case let (.integer(x), .double(y)): return -compareDoubleToInt(y, x)
        case let (.double(x), .integer(y)): return compareDoubleToInt(x, y)
        case let (.timestamp(x), .timestamp(y)): return x == y ? 0 : (x < y ? -1 : 1)
        case let (.string(x), .string(y)): return compareUTF8(x, y)
        case let (.bytes(x), .bytes(y)): return compareBytes(x, y)
        case let (.reference(x), .reference(y)): return compareReferences(x, y)
        case let (.geoPoint(x), .geoPoint(y)):
            let c = compareDoubles(x.latitude, y.latitude)
            return c != 0 ? c : compareDoubles(x.longitude, y.longitude)
        case let (.array(x), .array(y)): return compareArrays(x, y)
        case let (.vector(x), .vector(y)):
            if x.count != y.count { return x.count < y.count ? -1 : 1 }
            for i in x.indices {
                let c = compareDoubles(x[i], y[i])
                if c != 0 { return c }
            }
            return 0
        case let (.map(x), .map(y)): return compareMaps(x, y)
        default: return 0  // unreachable: same type order implies same case family
        }
    }

    /// Equality as query filters compare (docs/semantics.md#equality): the order's equality,
    /// except that a NaN value or operand equals nothing, itself included (NaN is matched
    /// only by the dedicated IS_NAN filter). Inside an array or a map NaN equals NaN, as the
    /// order has it: `== [NaN, 1]` matches `[NaN, 1]` (recorded from the official emulator,
    /// Tests/Differential/cases/nan_filters.py).
    public static func firestoreEquals(_ a: Value, _ b: Value) -> Bool {
        switch (a, b) {
        case let (.double(x), _) where x.isNaN: return false
        case let (_, .double(y)) where y.isNaN: return false
        case let (.vector(x), .vector(y)):
            return x.count == y.count && zip(x, y).allSatisfy { !$0.isNaN && !$1.isNaN && $0 == $1 }
        default: return compare(a, b) == 0
        }
    }

    /// Equality used by `arrayUnion` / `arrayRemove`: numeric (`3 == 3.0`) and NaN == NaN.
    public static func transformEquals(_ a: Value, _ b: Value) -> Bool {
        compare(a, b) == 0
    }

    /// NaN lowest and equal to itself; -0.0 == 0.0.
    @inline(__always)
    static func compareDoubles(_ x: Double, _ y: Double) -> Int {
        if x < y { return -1 }
        if x > y { return 1 }
        if x == y { return 0 }
        // At least one NaN.
        if x.isNaN { return y.isNaN ? 0 : -1 }
        return 1
    }

    /// Exact comparison of a double with an int64 (no precision loss).
    static func compareDoubleToInt(_ d: Double, _ i: Int64) -> Int {
        if d.isNaN { return -1 }
        if d < -9_223_372_036_854_775_808.0 { return -1 }  // below -2^63, incl. -inf
        if d >= 9_223_372_036_854_775_808.0 { return 1 }   // at or above 2^63, incl. +inf
        let t = Int64(d.rounded(.towardZero))
        if t != i { return t < i ? -1 : 1 }
        // Same integer part: the fractional part decides.
        let frac = d - d.rounded(.towardZero)
        return frac == 0 ? 0 : (frac < 0 ? -1 : 1)
    }

    static func compareBytes(_ x: Data, _ y: Data) -> Int {
        let n = min(x.count, y.count)
        var result = 0
        x.withUnsafeBytes { px in
            y.withUnsafeBytes { py in
                if n > 0 {
                    let c = memcmp(px.baseAddress!, py.baseAddress!, n)
                    result = c == 0 ? 0 : (c < 0 ? -1 : 1)
                }
            }
        }
        if result != 0 { return result }
        return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
    }

    static func compareReferences(_ x: DocumentName, _ y: DocumentName) -> Int {
        var c = compareUTF8(x.database.project, y.database.project)
        if c != 0 { return c }
        c = compareUTF8(x.database.database, y.database.database)
        if c != 0 { return c }
        return ResourcePath.compare(x.path, y.path)
    }

    static func compareArrays(_ x: [Value], _ y: [Value]) -> Int {
        for i in 0..<min(x.count, y.count) {
            let c = compare(x[i], y[i])
            if c != 0 { return c }
        }
        return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
    }

    static func compareMaps(_ x: MapValue, _ y: MapValue) -> Int {
        let xe = x.entries, ye = y.entries
        for i in 0..<min(xe.count, ye.count) {
            var c = compareUTF8(xe[i].key, ye[i].key)
            if c != 0 { return c }
            c = compare(xe[i].value, ye[i].value)
            if c != 0 { return c }
        }
        return xe.count == ye.count ? 0 : (xe.count < ye.count ? -1 : 1)
    }
}

