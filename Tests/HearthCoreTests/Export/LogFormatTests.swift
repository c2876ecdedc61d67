import Foundation
import Testing
@testable import HearthCore

@Suite("LevelDB log framing and CRC-32C (docs/export-format.md#the-log-container)")
struct LogFormatTests {
    @Test("CRC-32C: the check value of \"123456789\", a checksum, its masked form and back")
    func checksum() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([0x01, 0x33]) == 0xC170_55E0)
        #expect(CRC32C.mask(0xC170_55E0) == 0x4E44_6DB8)
        #expect(CRC32C.unmask(0x4E44_6DB8) == 0xC170_55E0)
        // Slicing-by-8 agrees with the byte-at-a-time path at every length and alignment.
        let data = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
        for start in 0..<9 {
            for length in [0, 1, 7, 8, 9, 63, 64, 250] where start + length <= data.count {
                let slice = Array(data[start..<(start + length)])
                var c: UInt32 = 0xFFFF_FFFF
                for b in slice {
                    c ^= UInt32(b)
                    for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0x82F6_3B78 : c >> 1 }
                }
                #expect(CRC32C.checksum(slice) == c ^ 0xFFFF_FFFF)
            }
        }
    }

    @Test("the empty export's overall file is the 15 bytes the official emulator writes")
    func emptyOverall() {
        var out: [UInt8] = []
        var framer = LogFramer()
        framer.frame(Array("3".utf8), into: &out)
        framer.frame([], into: &out)
        #expect(out == [0xb8, 0x6d, 0x44, 0x4e, 0x01, 0x00, 0x01, 0x33, 0x05, 0x2b, 0x28, 0x43, 0x00, 0x00, 0x01])
    }

    /// Every log file of every official export, re-framed from its records, is byte-identical:
    /// trailers, the empty FIRST fragment at exactly 7 bytes, exact block fills, a record over
    /// five blocks.
    @Test("re-framing every official log file reproduces it byte for byte",
          arguments: ["official-export", "official-export-split", "official-export-framing/trailer-3-bytes",
                      "official-export-framing/exactly-7-left", "official-export-framing/exact-block-fill",
                      "official-export-single", "official-export-empty", "official-export-named-db"])
    func reframe(_ fixture: String) throws {
        let dir = ExportFixtures.path(fixture)
        let logs = ExportFixtures.files(under: dir).filter { $0.contains("output-") || $0.hasSuffix(".overall_export_metadata") }
        #expect(!logs.isEmpty)
        for relative in logs {
            let path = (dir as NSString).appendingPathComponent(relative)
            var out: [UInt8] = []
            var framer = LogFramer()
            for record in try ExportFixtures.records(path) { framer.frame(record, into: &out) }
            #expect(out == Array(try Data(contentsOf: URL(fileURLWithPath: path))), "\(relative)")
        }
    }

    @Test("records of every size round-trip through framing, across block boundaries")
    func roundTrip() throws {
        let dir = try ExportFixtures.temporaryDirectory("log")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sizes = [0, 1, 6, 7, 8, 100, 32_754, 32_755, 32_761, 32_762, 70_000, 3, 0, 200_000, 5]
        let records = sizes.enumerated().map { i, n in (0..<n).map { UInt8(truncatingIfNeeded: $0 &+ i) } }
        var out: [UInt8] = []
        var framer = LogFramer()
        for r in records { framer.frame(r, into: &out) }
        let path = (dir as NSString).appendingPathComponent("log")
        try Data(out).write(to: URL(fileURLWithPath: path))
        #expect(try ExportFixtures.records(path) == records)
    }

    @Test("damage is reported with the file, the offset and what is wrong")
    func damage() throws {
        let dir = try ExportFixtures.temporaryDirectory("log")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var out: [UInt8] = []
        var framer = LogFramer()
        framer.frame(Array(repeating: 0x61, count: 40), into: &out)
        framer.frame(Array(repeating: 0x62, count: 40_000), into: &out)
        let path = (dir as NSString).appendingPathComponent("log")
        func read(_ bytes: [UInt8]) -> LogFormatError? {
            try? Data(bytes).write(to: URL(fileURLWithPath: path))
            do { _ = try ExportFixtures.records(path); return nil } catch let e as LogFormatError { return e } catch { return nil }
        }
        var flipped = out
        flipped[50] ^= 1  // inside the second record's first fragment payload
        #expect(read(flipped) == LogFormatError(file: path, offset: 47, problem: .checksum))
        #expect(read(Array(out.prefix(out.count - 10)))?.problem == .truncatedPayload)
        #expect(read(Array(out.prefix(32_768)))?.problem == .endInsideRecord)
        var badType = out
        badType[6] = 9
        #expect(read(badType)?.problem == .badType(9))
        // A LAST with no FIRST: drop the first block.
        #expect(read(Array(out.dropFirst(32_768)))?.problem == .orphanFragment)
        #expect(read(flipped)?.description == "\(path), byte 47: checksum mismatch")
    }
}

extension LogFormatError: Equatable {
    public static func == (a: LogFormatError, b: LogFormatError) -> Bool {
        a.file == b.file && a.offset == b.offset && a.problem == b.problem
    }
}
