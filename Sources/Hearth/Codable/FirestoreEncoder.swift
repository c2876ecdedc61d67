import Foundation
import HearthCore

extension Firestore {
    /// Turns `Encodable` values into the `[String: Any]` dictionaries `setData` takes, like the
    /// SDK's `Firestore.Encoder` (a `JSONEncoder` look-alike).
    ///
    /// The output holds Swift natives (`Int`, `Double`, `Bool`, `String`, `[Any]`,
    /// `[String: Any]`, `NSNull`); `Timestamp`, `GeoPoint`, `DocumentReference`, `FieldValue`
    /// and `VectorValue` pass through untouched; `Date` becomes a `Timestamp` and `Data` stays
    /// `Data` by default. `nil` optionals are left out and `@DocumentID` properties are never
    /// written. The top-level value must encode as a keyed container.
    public final class Encoder {
        /// How `Date` values are written.
        public enum DateEncodingStrategy {
            /// `Date`'s own `Codable` form (seconds since 2001 as a double).
            case deferredToDate
            /// Seconds since 1970, as a double.
            case secondsSince1970
            /// Milliseconds since 1970, as a double.
            case millisecondsSince1970
            /// An ISO 8601 (RFC 3339) string.
            case iso8601
            /// A string made by the formatter.
            case formatted(DateFormatter)
            /// Whatever the closure encodes (an empty map if it encodes nothing).
            case custom((Date, any Swift.Encoder) throws -> Void)
            /// A Firestore `Timestamp` (the default).
            case timestamp
        }

        /// How `Data` values are written.
        public enum DataEncodingStrategy {
            /// `Data`'s own `Codable` form (an array of byte values).
            case deferredToData
            /// A base64 string.
            case base64
            /// A Firestore bytes value (the default).
            case blob
            /// Whatever the closure encodes (an empty map if it encodes nothing).
            case custom((Data, any Swift.Encoder) throws -> Void)
        }

        /// How infinities and NaN are written.
        public enum NonConformingFloatEncodingStrategy {
            /// Throw `EncodingError.invalidValue` (the default).
            case `throw`
            /// Write the given strings instead.
            case convertToString(positiveInfinity: String, negativeInfinity: String, nan: String)
        }

        /// How coding keys become field names.
        public enum KeyEncodingStrategy {
            /// The keys as declared (the default).
            case useDefaultKeys
            /// `camelCase` → `snake_case` (keys of `[String: T]` dictionaries are left alone).
            case convertToSnakeCase
            /// The key the closure returns for the full coding path.
            case custom((_ codingPath: [any CodingKey]) -> any CodingKey)
        }

        public var dateEncodingStrategy: DateEncodingStrategy = .timestamp
        public var dataEncodingStrategy: DataEncodingStrategy = .blob
        public var nonConformingFloatEncodingStrategy: NonConformingFloatEncodingStrategy = .throw
        public var keyEncodingStrategy: KeyEncodingStrategy = .useDefaultKeys
        /// Contextual information handed to the values being encoded.
        public var userInfo: [CodingUserInfoKey: Any] = [:]

        public init() {}

        /// Encodes a value whose top level is keyed (a struct, class or `[String: T]`);
        /// anything else throws `EncodingError.invalidValue`.
        public func encode<T: Encodable>(_ value: T) throws -> [String: Any] {
            let options = FirestoreEncodingOptions(
                date: dateEncodingStrategy, data: dataEncodingStrategy,
                nonConformingFloat: nonConformingFloatEncodingStrategy, key: keyEncodingStrategy,
                userInfo: userInfo)
            let encoder = FirestoreEncoding(options: options, codingPath: [])
            guard let slot = try encoder.boxIfEncoded(value, at: []) else {
                throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
            }
            guard case let map as [String: Any] = slot.resolved else {
                throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "Top-level \(T.self) is not allowed."))
            }
            return map
        }
    }
}

/// The encoder's settings, shared by every nested encoder and container.
struct FirestoreEncodingOptions {
    let date: Firestore.Encoder.DateEncodingStrategy
    let data: Firestore.Encoder.DataEncodingStrategy
    let nonConformingFloat: Firestore.Encoder.NonConformingFloatEncodingStrategy
    let key: Firestore.Encoder.KeyEncodingStrategy
    let userInfo: [CodingUserInfoKey: Any]

    /// The field name for `key` at the end of `codingPath`.
    func fieldName(_ key: any CodingKey, in codingPath: [any CodingKey]) -> String {
        switch self.key {
        case .useDefaultKeys: key.stringValue
        case .convertToSnakeCase: snakeCased(key.stringValue)
        case .custom(let convert): convert(codingPath + [key]).stringValue
        }
    }

    /// A finite double, or what the non-conforming float strategy makes of an infinity or NaN.
    func checkedFloat<F: BinaryFloatingPoint>(_ value: F, at path: [any CodingKey]) throws -> Any {
        if value.isFinite { return Double(value) }
        guard case let .convertToString(positive, negative, nan) = nonConformingFloat else {
            let name = value.isNaN ? "\(F.self).nan" : (value < 0 ? "-\(F.self).infinity" : "\(F.self).infinity")
            throw EncodingError.invalidValue(value, .init(codingPath: path, debugDescription: "Unable to encode \(name) directly in Firestore. Use Firestore.Encoder.NonConformingFloatEncodingStrategy.convertToString to specify how the value should be encoded."))
        }
        return value.isNaN ? nan : (value < 0 ? negative : positive)
    }
}

/// `JSONEncoder`'s snake-case conversion: words split at lower→upper transitions and before
/// the last capital of a run of capitals (`myURLProperty` → `my_url_property`); the first
/// character is assumed to start a word.
func snakeCased(_ key: String) -> String {
    let chars = Array(key)
    guard !chars.isEmpty else { return key }
    var words: [ArraySlice<Character>] = []
    var wordStart = 0
    var searchFrom = 1
    while let upper = (searchFrom..<chars.count).first(where: { chars[$0].isUppercase }) {
        words.append(chars[wordStart..<upper])
        guard let lower = (upper..<chars.count).first(where: { chars[$0].isLowercase }) else {
            wordStart = upper
            break
        }
        if lower == upper + 1 {
            wordStart = upper  // a single capital starts the next word
        } else {
            words.append(chars[upper..<(lower - 1)])  // a run of capitals is its own word
            wordStart = lower - 1
        }
        searchFrom = lower + 1
    }
    words.append(chars[wordStart...])
    return words.map { String($0).lowercased() }.joined(separator: "_")
}

// MARK: - Value tree

/// A value being encoded. Containers are classes so a container handed out earlier keeps
/// writing into the tree; `resolved` turns the finished tree into plain Swift values.
enum EncodedSlot {
    case value(Any)
    case map(EncodedMap)
    case array(EncodedArray)
    /// What a sub-encoder (`superEncoder()`) produced, read when the tree is resolved.
    case encoder(FirestoreEncoding)

    var resolved: Any {
        switch self {
        case .value(let v): v
        case .map(let m): m.entries.mapValues(\.resolved)
        case .array(let a): a.elements.map(\.resolved)
        case .encoder(let e): e.slot?.resolved ?? [String: Any]()
        }
    }
}

final class EncodedMap {
    var entries: [String: EncodedSlot] = [:]
}

final class EncodedArray {
    var elements: [EncodedSlot] = []
}

/// A coding key made at run time: dictionary keys, array indices and `super`.
struct FirestoreCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = "\(intValue)"
        self.intValue = intValue
    }

    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }

    static let `super` = FirestoreCodingKey(stringValue: "super")
}

/// Marks a property type that Firestore's coders do not look up by key: `@DocumentID` is
/// never written, and is filled from the document's reference when read.
protocol FirestoreUncodedProperty {}

// MARK: - Encoder

/// The `Swift.Encoder` handed to values; it is also their single-value container.
final class FirestoreEncoding: Swift.Encoder, SingleValueEncodingContainer {
    let options: FirestoreEncodingOptions
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }
    /// What this encoder produced; nil until the value asks for a container or encodes.
    private(set) var slot: EncodedSlot?

    init(options: FirestoreEncodingOptions, codingPath: [any CodingKey]) {
        self.options = options
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let map: EncodedMap
        switch slot {
        case .map(let existing)?: map = existing  // asking twice (e.g. a superclass) shares the map
        case nil:
            map = EncodedMap()
            slot = .map(map)
        default: preconditionFailure("Attempt to push new keyed encoding container when already previously encoded at this path.")
        }
        return KeyedEncodingContainer(FirestoreKeyedEncodingContainer<Key>(encoder: self, map: map, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: EncodedArray
        switch slot {
        case .array(let existing)?: array = existing
        case nil:
            array = EncodedArray()
            slot = .array(array)
        default: preconditionFailure("Attempt to push new unkeyed encoding container when already previously encoded at this path.")
        }
        return FirestoreUnkeyedEncodingContainer(encoder: self, array: array, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    // MARK: Boxing

    /// Encodes one value found at `path`, or an empty map if it encodes nothing.
    func box<T: Encodable>(_ value: T, at path: [any CodingKey]) throws -> EncodedSlot {
        try boxIfEncoded(value, at: path) ?? .map(EncodedMap())
    }

    /// Encodes one value found at `path`: scalars, strategy-driven types and Firestore's own
    /// types are handled here, anything else encodes itself into a child encoder. Nil when
    /// the value encoded nothing.
    func boxIfEncoded<T: Encodable>(_ value: T, at path: [any CodingKey]) throws -> EncodedSlot? {
        if let scalar = value as? any FirestoreEncodableScalar {
            return .value(try scalar.firestoreValue(options, at: path))
        }
        // Firestore's own types are inserted as they are (checked before their `encode(to:)`,
        // which throws for other encoders).
        if value is Timestamp || value is GeoPoint || value is DocumentReference || value is FieldValue || value is VectorValue {
            return .value(value)
        }
        if let date = value as? Date { return try boxDate(date, at: path) }
        if let data = value as? Data { return try boxData(data, at: path) }
        if let url = value as? URL { return .value(url.absoluteString) }
        if let decimal = value as? Decimal {
            return .value(try options.checkedFloat(NSDecimalNumber(decimal: decimal).doubleValue, at: path))
        }
        if let dictionary = value as? any StringKeyedEncodableDictionary {
            // Like JSONEncoder, a `[String: T]`'s keys are data, not coding keys: no key strategy.
            let map = EncodedMap()
            try dictionary.forEachEncodableEntry { key, element in
                map.entries[key] = try box(element, at: path + [FirestoreCodingKey(stringValue: key)])
            }
            return .map(map)
        }
        return try encodeInChild(at: path) { try value.encode(to: $0) }
    }

    /// Runs `body` against a fresh encoder at `path` and returns what it produced.
    private func encodeInChild(at path: [any CodingKey], _ body: (FirestoreEncoding) throws -> Void) throws -> EncodedSlot? {
        let child = FirestoreEncoding(options: options, codingPath: path)
        try body(child)
        return child.slot
    }

    private func boxDate(_ date: Date, at path: [any CodingKey]) throws -> EncodedSlot? {
        switch options.date {
        case .timestamp: .value(try Timestamp.checked(date, at: path))
        case .deferredToDate: try encodeInChild(at: path) { try date.encode(to: $0) }
        case .secondsSince1970: .value(date.timeIntervalSince1970)
        case .millisecondsSince1970: .value(1000 * date.timeIntervalSince1970)
        case .iso8601: .value(date.formatted(.iso8601))
        case .formatted(let formatter): .value(formatter.string(from: date))
        case .custom(let encode): try encodeInChild(at: path) { try encode(date, $0) } ?? .map(EncodedMap())
        }
    }

    private func boxData(_ data: Data, at path: [any CodingKey]) throws -> EncodedSlot? {
        switch options.data {
        case .blob: .value(data)
        case .base64: .value(data.base64EncodedString())
        case .deferredToData: try encodeInChild(at: path) { try data.encode(to: $0) }
        case .custom(let encode): try encodeInChild(at: path) { try encode(data, $0) } ?? .map(EncodedMap())
        }
    }

    // MARK: SingleValueEncodingContainer

    private func store(_ newSlot: EncodedSlot) {
        precondition(slot == nil, "Attempt to encode value through single value container when previously value already encoded.")
        slot = newSlot
    }

    func encodeNil() throws { store(.value(NSNull())) }
    func encode(_ value: Bool) throws { store(try box(value, at: codingPath)) }
    func encode(_ value: String) throws { store(try box(value, at: codingPath)) }
    func encode(_ value: Double) throws { store(try box(value, at: codingPath)) }
    func encode(_ value: Float) throws { store(try box(value, at: codingPath)) }
    func encode(_ value: Int) throws { store(try box(value, at: codingPath)) }
    func encode(_ value: Int8) throws { store(try box(value, at: codingPath)) }
    func encode(_ value: Int16) throws { store(try box(value, at: codingPath)) }
    func encode(_ value: Int32) throws { store(try box(value, at: codingPath)) }
    func encode(_ value: Int64) throws { store(try box(value, at: codingPath)) }
    func encode(_ value: UInt) throws { store(try box(value, at: codingPath)) }
    func encode(_ value: UInt8) throws { store(try box(value, at: codingPath)) }
    func encode(_ value: UInt16) throws { store(try box(value, at: codingPath)) }
    func encode(_ value: UInt32) throws { store(try box(value, at: codingPath)) }
    func encode(_ value: UInt64) throws { store(try box(value, at: codingPath)) }
    func encode<T: Encodable>(_ value: T) throws { store(try box(value, at: codingPath)) }
}

// MARK: - Containers

struct FirestoreKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: FirestoreEncoding
    let map: EncodedMap
    let codingPath: [any CodingKey]

    private func name(_ key: any CodingKey) -> String {
        encoder.options.fieldName(key, in: codingPath)
    }

    private func put<T: Encodable>(_ value: T, _ key: Key) throws {
        map.entries[name(key)] = try encoder.box(value, at: codingPath + [key])
    }

    mutating func encodeNil(forKey key: Key) throws { map.entries[name(key)] = .value(NSNull()) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try put(value, key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if T.self is any FirestoreUncodedProperty.Type { return }  // @DocumentID is never written
        try put(value, key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested: EncodedMap
        if case .map(let existing)? = map.entries[name(key)] {
            nested = existing
        } else {
            nested = EncodedMap()
            map.entries[name(key)] = .map(nested)
        }
        return KeyedEncodingContainer(FirestoreKeyedEncodingContainer<NestedKey>(encoder: encoder, map: nested, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested: EncodedArray
        if case .array(let existing)? = map.entries[name(key)] {
            nested = existing
        } else {
            nested = EncodedArray()
            map.entries[name(key)] = .array(nested)
        }
        return FirestoreUnkeyedEncodingContainer(encoder: encoder, array: nested, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Swift.Encoder { superEncoder(at: FirestoreCodingKey.super) }

    mutating func superEncoder(forKey key: Key) -> any Swift.Encoder { superEncoder(at: key) }

    private func superEncoder(at key: any CodingKey) -> any Swift.Encoder {
        let child = FirestoreEncoding(options: encoder.options, codingPath: codingPath + [key])
        map.entries[name(key)] = .encoder(child)
        return child
    }
}

struct FirestoreUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let encoder: FirestoreEncoding
    let array: EncodedArray
    let codingPath: [any CodingKey]

    var count: Int { array.elements.count }

    private var nextPath: [any CodingKey] { codingPath + [FirestoreCodingKey(index: count)] }

    private func put<T: Encodable>(_ value: T) throws {
        array.elements.append(try encoder.box(value, at: nextPath))
    }

    mutating func encodeNil() throws { array.elements.append(.value(NSNull())) }
    mutating func encode(_ value: Bool) throws { try put(value) }
    mutating func encode(_ value: String) throws { try put(value) }
    mutating func encode(_ value: Double) throws { try put(value) }
    mutating func encode(_ value: Float) throws { try put(value) }
    mutating func encode(_ value: Int) throws { try put(value) }
    mutating func encode(_ value: Int8) throws { try put(value) }
    mutating func encode(_ value: Int16) throws { try put(value) }
    mutating func encode(_ value: Int32) throws { try put(value) }
    mutating func encode(_ value: Int64) throws { try put(value) }
    mutating func encode(_ value: UInt) throws { try put(value) }
    mutating func encode(_ value: UInt8) throws { try put(value) }
    mutating func encode(_ value: UInt16) throws { try put(value) }
    mutating func encode(_ value: UInt32) throws { try put(value) }
    mutating func encode(_ value: UInt64) throws { try put(value) }
    mutating func encode<T: Encodable>(_ value: T) throws { try put(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = EncodedMap()
        let path = nextPath
        array.elements.append(.map(nested))
        return KeyedEncodingContainer(FirestoreKeyedEncodingContainer<NestedKey>(encoder: encoder, map: nested, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = EncodedArray()
        let path = nextPath
        array.elements.append(.array(nested))
        return FirestoreUnkeyedEncodingContainer(encoder: encoder, array: nested, codingPath: path)
    }

    mutating func superEncoder() -> any Swift.Encoder {
        let child = FirestoreEncoding(options: encoder.options, codingPath: nextPath)
        array.elements.append(.encoder(child))
        return child
    }
}

// MARK: - Scalars and special types

/// Swift's built-in scalars, written as Firestore booleans, integers, doubles and strings.
protocol FirestoreEncodableScalar {
    func firestoreValue(_ options: FirestoreEncodingOptions, at path: [any CodingKey]) throws -> Any
}

extension Bool: FirestoreEncodableScalar {
    func firestoreValue(_ options: FirestoreEncodingOptions, at path: [any CodingKey]) throws -> Any { self }
}

extension String: FirestoreEncodableScalar {
    func firestoreValue(_ options: FirestoreEncodingOptions, at path: [any CodingKey]) throws -> Any { self }
}

extension FirestoreEncodableScalar where Self: FixedWidthInteger {
    /// Every integer becomes an `Int` (64-bit on every supported platform, like Firestore's
    /// integers); unsigned values above `Int64.max` throw instead of reaching the writer.
    func firestoreValue(_ options: FirestoreEncodingOptions, at path: [any CodingKey]) throws -> Any {
        guard let int = Int(exactly: self) else {
            throw EncodingError.invalidValue(self, .init(codingPath: path, debugDescription: "\(self) does not fit in a Firestore integer (64-bit signed)."))
        }
        return int
    }
}

extension FirestoreEncodableScalar where Self: BinaryFloatingPoint {
    func firestoreValue(_ options: FirestoreEncodingOptions, at path: [any CodingKey]) throws -> Any {
        try options.checkedFloat(self, at: path)
    }
}

extension Int: FirestoreEncodableScalar {}
extension Int8: FirestoreEncodableScalar {}
extension Int16: FirestoreEncodableScalar {}
extension Int32: FirestoreEncodableScalar {}
extension Int64: FirestoreEncodableScalar {}
extension UInt: FirestoreEncodableScalar {}
extension UInt8: FirestoreEncodableScalar {}
extension UInt16: FirestoreEncodableScalar {}
extension UInt32: FirestoreEncodableScalar {}
extension UInt64: FirestoreEncodableScalar {}
extension Double: FirestoreEncodableScalar {}
extension Float: FirestoreEncodableScalar {}

/// `[String: T]`, whose entries the encoder walks itself to keep the keys as they are.
protocol StringKeyedEncodableDictionary {
    func forEachEncodableEntry(_ body: (String, any Encodable) throws -> Void) rethrows
}

extension Dictionary: StringKeyedEncodableDictionary where Key == String, Value: Encodable {
    func forEachEncodableEntry(_ body: (String, any Encodable) throws -> Void) rethrows {
        for (key, value) in self { try body(key, value) }
    }
}

extension Timestamp {
    /// The timestamp for a date, or `EncodingError.invalidValue` when the date lies outside
    /// Firestore's range (0001-01-01 … 9999-12-31), where `Timestamp(date:)` would trap.
    static func checked(_ date: Date, at path: [any CodingKey]) throws -> Timestamp {
        let seconds = date.timeIntervalSince1970
        if seconds.isFinite, seconds >= Double(HearthCore.Timestamp.minSeconds), seconds < Double(HearthCore.Timestamp.maxSeconds) + 1 {
            let core = HearthCore.Timestamp(date: date)
            if let valid = try? HearthCore.Timestamp.validated(seconds: core.seconds, nanos: core.nanos) {
                return Timestamp(valid)
            }
        }
        throw EncodingError.invalidValue(date, .init(codingPath: path, debugDescription: "\(date) is outside the range of Firestore timestamps (0001-01-01 to 9999-12-31)."))
    }
}
