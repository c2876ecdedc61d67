// A zip archive with stored (uncompressed) entries: what a JAR needs to be loaded by `java
// -jar`, without a deflate encoder. The launcher's entries are a few hundred bytes, so
// compression would gain nothing.

/// Writes the entries given, in order, with a central directory. No zip64: each entry and
/// the whole archive must stay under 4 GiB (the launcher's are under 4 KiB).
struct StoredZipWriter {
    private var out: [UInt8] = []
    private var central: [UInt8] = []
    private var count = 0

    /// MS-DOS date and time 1980-01-01 00:00: a fixed stamp, so the same input gives the
    /// same bytes.
    private static let dosTime: UInt16 = 0, dosDate: UInt16 = (0 << 9) | (1 << 5) | 1

    mutating func add(_ name: String, _ data: [UInt8]) {
        let nameBytes = Array(name.utf8)
        let crc = CRC32.checksum(data)
        let offset = UInt32(out.count)
        // Local file header: version 1.0, flag bit 11 (UTF-8 names), method 0 (stored).
        out += le32(0x0403_4B50) + le16(10) + le16(0x0800) + le16(0) + le16(Self.dosTime) + le16(Self.dosDate)
        out += le32(crc) + le32(UInt32(data.count)) + le32(UInt32(data.count))
        out += le16(UInt16(nameBytes.count)) + le16(0) + nameBytes + data
        central += le32(0x0201_4B50) + le16(0x0314) + le16(10) + le16(0x0800) + le16(0) + le16(Self.dosTime) + le16(Self.dosDate)
        central += le32(crc) + le32(UInt32(data.count)) + le32(UInt32(data.count))
        central += le16(UInt16(nameBytes.count)) + le16(0) + le16(0) + le16(0) + le16(0)
        central += le32(0o100644 << 16)  // external attributes: a regular file, rw-r--r--
        central += le32(offset) + nameBytes
        count += 1
    }

    /// The archive: entries, central directory, end record.
    func bytes() -> [UInt8] {
        var all = out + central
        all += le32(0x0605_4B50) + le16(0) + le16(0) + le16(UInt16(count)) + le16(UInt16(count))
        all += le32(UInt32(central.count)) + le32(UInt32(out.count)) + le16(0)
        return all
    }

    private func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    private func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)] }
}

/// CRC-32 as zip uses it (IEEE 802.3, reflected, polynomial 0xEDB88320).
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum(_ data: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in data { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
