import Foundation

/// A type `@ServerTimestamp` can hold: converted from and to a `Timestamp`. Hearth provides
/// `Date` and `Timestamp`; apps may add their own.
public protocol ServerTimestampWrappable {
    static func wrap(_ timestamp: Timestamp) throws -> Self
    static func unwrap(_ value: Self) throws -> Timestamp
}

extension Date: ServerTimestampWrappable {
    public static func wrap(_ timestamp: Timestamp) throws -> Date {
        timestamp.dateValue()
    }

    /// Throws `EncodingError.invalidValue` for a date outside Firestore's range (the SDK traps).
    public static func unwrap(_ value: Date) throws -> Timestamp {
        try Timestamp.checked(value, at: [])
    }
}

extension Timestamp: ServerTimestampWrappable {
    public static func wrap(_ timestamp: Timestamp) throws -> Timestamp { timestamp }

    public static func unwrap(_ value: Timestamp) throws -> Timestamp { value }
}

/// Marks a `Timestamp?` or `Date?` property that the server fills in: when the value is
/// `nil`, it is written as `FieldValue.serverTimestamp()` (the commit time); otherwise the
/// timestamp itself is written. A `null` field reads back as `nil`.
///
/// ```swift
/// struct Post: Codable {
///     var text: String
///     @ServerTimestamp var createdAt: Date?
/// }
/// ```
@propertyWrapper
public struct ServerTimestamp<Value: ServerTimestampWrappable & Codable>: Codable {
    var value: Value?

    public init(wrappedValue value: Value?) {
        self.value = value
    }

    public var wrappedValue: Value? {
        get { value }
        set { value = newValue }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        value = container.decodeNil() ? nil : try Value.wrap(container.decode(Timestamp.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value {
            try container.encode(Value.unwrap(value))
        } else {
            try container.encode(FieldValue.serverTimestamp())
        }
    }
}

extension ServerTimestamp: Equatable where Value: Equatable {}
extension ServerTimestamp: Hashable where Value: Hashable {}
extension ServerTimestamp: Sendable where Value: Sendable {}
