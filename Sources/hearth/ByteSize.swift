/// Sizes on the command line: a number of bytes, or with a unit — `K`/`KiB`, `M`/`MiB`,
/// `G`/`GiB` (all powers of 1024, as memory is counted), case-insensitive.
enum ByteSize {
    static func parse(_ text: String) -> Int? {
        let units: [(suffix: String, shift: Int)] = [("kib", 10), ("mib", 20), ("gib", 30), ("k", 10), ("m", 20), ("g", 30), ("b", 0)]
        let lower = text.lowercased()
        for (suffix, shift) in units where lower.hasSuffix(suffix) {
            guard let n = Int(lower.dropLast(suffix.count)), n >= 0, n <= Int.max >> shift else { return nil }
            return n << shift
        }
        guard let n = Int(lower), n >= 0 else { return nil }
        return n
    }
}
