import Foundation

/// Java's `Double.toString`, which `string(float)` follows (docs/rules-language.md#global-functions): `1.0E20`, `1.0E-5`.
func javaDoubleString(_ d: Double) -> String {
    if d.isNaN { return "NaN" }
    if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
    if d == 0 { return d.sign == .minus ? "-0.0" : "0.0" }
    let magnitude = abs(d)
    if magnitude >= 1e-3 && magnitude < 1e7 {
        var s = "\(d)"  // Swift prints the shortest round-trip digits, as Java does here
        if !s.utf8.contains(UInt8(ascii: ".")) && !s.utf8.contains(UInt8(ascii: "e")) { s += ".0" }
        return s
    }
    // Scientific: shortest digits d.dddE±x.
    let swift = "\(d)"  // e.g. "1e+20", "1.23456789e-05"
    var mantissa = swift
    var exponent = 0
    if let e = swift.firstIndex(where: { $0 == "e" || $0 == "E" }) {
        mantissa = String(swift[..<e])
        exponent = Int(swift[swift.index(after: e)...].replacingOccurrences(of: "+", with: "")) ?? 0
    } else {
        // Swift printed positional notation (e.g. 123456789.0): normalise by hand.
        let negative = mantissa.hasPrefix("-")
        if negative { mantissa.removeFirst() }
        var parts = mantissa.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if parts.count == 1 { parts.append("0") }
        var intPart = parts[0], frac = parts[1]
        if intPart != "0" {
            exponent = intPart.count - 1
            frac = String(intPart.dropFirst()) + frac
            intPart = String(intPart.prefix(1))
        } else {
            let zeros = frac.prefix(while: { $0 == "0" }).count
            exponent = -(zeros + 1)
            let rest = frac.dropFirst(zeros)
            intPart = String(rest.prefix(1))
            frac = String(rest.dropFirst())
        }
        while frac.hasSuffix("0") { frac.removeLast() }
        if frac.isEmpty { frac = "0" }
        mantissa = (negative ? "-" : "") + intPart + "." + frac
    }
    if !mantissa.utf8.contains(UInt8(ascii: ".")) { mantissa += ".0" }
    return "\(mantissa)E\(exponent)"
}
