import Foundation

/// Marks an optional property whose `nil` is written as an explicit `null` field instead
/// of leaving the field out (which is what `Codable` does with plain optionals).
///
/// ```swift
/// struct Profile: Codable {
///     @ExplicitNull var bio: String?   // nil → "bio": null
/// }
/// ```
@propertyWrapper
public struct ExplicitNull<Value> {
    var value: Value?

    public init(wrappedValue value: Value?) {
        self.value = value
    }

    public var wrappedValue: Value? {
        get { value }
        set { value = newValue }
    }
}

extension ExplicitNull: Equatable where Value: Equatable {}
extension ExplicitNull: Hashable where Value: Hashable {}
extension ExplicitNull: Sendable where Value: Sendable {}

extension ExplicitNull: Encodable where Value: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value {
            try container.encode(value)
        } else {
            try container.encodeNil()
        }
    }
}

extension ExplicitNull: Decodable where Value: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        value = container.decodeNil() ? nil : try container.decode(Value.self)
    }
}
