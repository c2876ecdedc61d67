import Foundation
import HearthCore

/// A point in time with nanosecond precision, independent of time zone or calendar
/// (FirebaseCore's `Timestamp`). Stored values keep microseconds.
public final class Timestamp: NSObject, NSCopying, Comparable, @unchecked Sendable {
    let core: HearthCore.Timestamp

    public var seconds: Int64 { core.seconds }
    public var nanoseconds: Int32 { core.nanos }

    /// Valid range 0001-01-01T00:00:00Z … 9999-12-31T23:59:59.999999999Z; out-of-range
    /// arguments are a programmer error, as in the SDK.
    public init(seconds: Int64, nanoseconds: Int32) {
        core = requireValid { () throws(FirestoreError) in
            try HearthCore.Timestamp.validated(seconds: seconds, nanos: nanoseconds)
        }
    }

    public convenience init(date: Date) {
        let t = HearthCore.Timestamp(date: date)
        self.init(seconds: t.seconds, nanoseconds: t.nanos)
    }

    /// Now.
    public convenience override init() {
        self.init(date: Date())
    }

    init(_ core: HearthCore.Timestamp) { self.core = core }

    public func dateValue() -> Date { core.date }

    public func compare(_ other: Timestamp) -> ComparisonResult {
        core == other.core ? .orderedSame : (core < other.core ? .orderedAscending : .orderedDescending)
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? Timestamp else { return false }
        return core == other.core
    }

    public override var hash: Int { core.hashValue }

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.core < b.core }
    public static func == (a: Timestamp, b: Timestamp) -> Bool { a.core == b.core }

    public override var description: String {
        "<FIRTimestamp: seconds=\(seconds) nanoseconds=\(nanoseconds)>"
    }
}

extension Timestamp: Codable {
    private enum CodingKeys: String, CodingKey { case seconds, nanoseconds }

    public convenience init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(seconds: try c.decode(Int64.self, forKey: .seconds), nanoseconds: try c.decode(Int32.self, forKey: .nanoseconds))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(seconds, forKey: .seconds)
        try c.encode(nanoseconds, forKey: .nanoseconds)
    }
}
