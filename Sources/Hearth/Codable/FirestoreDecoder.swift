import Foundation

extension Firestore {
    /// Builds `Decodable` values from what `DocumentSnapshot.data()` returns, like the SDK's
    /// `Firestore.Decoder` (a `JSONDecoder` look-alike).
    ///
    /// Numbers follow `JSONDecoder`'s rules: an integer or integral double decodes into any
    /// integer type it fits, any number decodes into `Double`/`Float`, and `Bool` only comes
    /// from booleans. `Timestamp`, `GeoPoint`, `DocumentReference` and `VectorValue` decode as
    /// themselves; `Date` comes from a `Timestamp` and `Data` from bytes by default.
    /// `@DocumentID` properties are filled from the reference given to `decode(_:from:in:)`.
    public final class Decoder {
        /// How `Date` values are read.
        public enum DateDecodingStrategy {
            /// `Date`'s own `Codable` form (seconds since 2001 as a double).
            case deferredToDate
            /// Seconds since 1970.
            case secondsSince1970
            /// Milliseconds since 1970.
            case millisecondsSince1970
            /// An ISO 8601 (RFC 3339) string.
            case iso8601
            /// A string parsed by the formatter.
            case formatted(DateFormatter)
            /// Whatever the closure makes of the value.
            case custom((_ decoder: any Swift.Decoder) throws -> Date)
            /// A Firestore `Timestamp` (or a `Date`) — the default.
            case timestamp
        }

        /// How `Data` values are read.
        public enum DataDecodingStrategy {
            /// `Data`'s own `Codable` form (an array of byte values).
            case deferredToData
            /// A base64 string.
            case base64
            /// A Firestore bytes value, or a base64 string (the default).
            case blob
            /// Whatever the closure makes of the value.
            case custom((_ decoder: any Swift.Decoder) throws -> Data)
        }

        /// How strings standing for infinities and NaN are read.
        public enum NonConformingFloatDecodingStrategy {
            /// Strings are never floats (the default).
            case `throw`
            /// These strings decode as the matching float.
            case convertFromString(positiveInfinity: String, negativeInfinity: String, nan: String)
        }

        /// How field names are matched with coding keys.
        public enum KeyDecodingStrategy {
            /// The keys as declared (the default).
            case useDefaultKeys
            /// `snake_case` field names match `camelCase` keys (`[String: T]` keys are left alone).
            case convertFromSnakeCase
            /// Each field name becomes the key the closure returns for its full coding path.
            case custom((_ codingPath: [any CodingKey]) -> any CodingKey)
        }

        public var dateDecodingStrategy: DateDecodingStrategy = .timestamp
        public var dataDecodingStrategy: DataDecodingStrategy = .blob
        public var nonConformingFloatDecodingStrategy: NonConformingFloatDecodingStrategy = .throw
        public var keyDecodingStrategy: KeyDecodingStrategy = .useDefaultKeys
        /// Contextual information handed to the values being decoded.
        public var userInfo: [CodingUserInfoKey: Any] = [:]

        public init() {}

        /// Decodes `data` (a `[String: Any]` from `data()`, any value it holds, or `NSNull`).
        public func decode<T: Decodable>(_ t: T.Type, from data: Any) throws -> T {
            try decode(t, from: data, in: nil)
        }

        /// Decodes `data`, filling `@DocumentID` properties from `reference`. Unlike the SDK,
        /// the reference is not left behind in `userInfo` for later calls.
        public func decode<T: Decodable>(_ t: T.Type, from data: Any, in reference: DocumentReference?) throws -> T {
            var info = userInfo
            if let reference { info[.documentReference] = reference }
            let options = FirestoreDecodingOptions(
                date: dateDecodingStrategy, data: dataDecodingStrategy,
                nonConformingFloat: nonConformingFloatDecodingStrategy, key: keyDecodingStrategy,
                userInfo: info)
            return try FirestoreDecoding(value: data, codingPath: [], options: options).unbox(data, as: t, at: [])
        }
    }
}

extension CodingUserInfoKey {
    /// Where `Firestore.Decoder` puts the document's reference for `@DocumentID` (the SDK's key).
    static let documentReference = CodingUserInfoKey(rawValue: "DocumentRefUserInfoKey")!
}

/// The decoder's settings, shared by every nested decoder and container.
struct FirestoreDecodingOptions {
    let date: Firestore.Decoder.DateDecodingStrategy
    let data: Firestore.Decoder.DataDecodingStrategy
    let nonConformingFloat: Firestore.Decoder.NonConformingFloatDecodingStrategy
    let key: Firestore.Decoder.KeyDecodingStrategy
    let userInfo: [CodingUserInfoKey: Any]

    /// A map's fields renamed by the key strategy, as the coding keys will look them up.
    func keyedFields(_ map: [String: Any], at codingPath: [any CodingKey]) -> [String: Any] {
        switch key {
        case .useDefaultKeys:
            return map
        case .convertFromSnakeCase:
            return Dictionary(map.map { (camelCased($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
        case .custom(let convert):
            return Dictionary(map.map { (convert(codingPath + [FirestoreCodingKey(stringValue: $0.key)]).stringValue, $0.value) },
                              uniquingKeysWith: { first, _ in first })
        }
    }
}

/// `JSONDecoder`'s snake-case conversion: `one_two_three` → `oneTwoThree`; leading and
/// trailing underscores are kept, a name without inner underscores is left as it is.
func camelCased(_ key: String) -> String {
    guard let first = key.firstIndex(where: { $0 != "_" }) else { return key }
    let last = key.lastIndex(where: { $0 != "_" })!
    let words = key[first...last].split(separator: "_")
    guard words.count > 1 else { return key }
    let joined = words[0].lowercased() + words.dropFirst().map(\.capitalized).joined()
    return String(key[..<first]) + joined + String(key[key.index(after: last)...])
}

// MARK: - Decoder

/// The `Swift.Decoder` handed to values; it is also their single-value container.
final class FirestoreDecoding: Swift.Decoder, SingleValueDecodingContainer {
    let value: Any
    let codingPath: [any CodingKey]
    let options: FirestoreDecodingOptions
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    init(value: Any, codingPath: [any CodingKey], options: FirestoreDecodingOptions) {
        self.value = unwrapOptional(value)
        self.codingPath = codingPath
        self.options = options
    }

    func child(_ value: Any, at path: [any CodingKey]) -> FirestoreDecoding {
        FirestoreDecoding(value: value, codingPath: path, options: options)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if value is NSNull {
            throw DecodingError.valueNotFound(KeyedDecodingContainer<Key>.self, .init(codingPath: codingPath, debugDescription: "Cannot get keyed decoding container -- found null value instead."))
        }
        guard let map = value as? [String: Any] else { throw typeMismatch([String: Any].self, value, at: codingPath) }
        return KeyedDecodingContainer(FirestoreKeyedDecodingContainer<Key>(decoder: self, fields: options.keyedFields(map, at: codingPath)))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        if value is NSNull {
            throw DecodingError.valueNotFound((any UnkeyedDecodingContainer).self, .init(codingPath: codingPath, debugDescription: "Cannot get unkeyed decoding container -- found null value instead."))
        }
        guard let array = value as? [Any] else { throw typeMismatch([Any].self, value, at: codingPath) }
        return FirestoreUnkeyedDecodingContainer(decoder: self, elements: array)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    // MARK: Unboxing

    /// Decodes one value found at `path`: scalars, strategy-driven types and Firestore's own
    /// types are handled here, anything else decodes itself from a child decoder.
    func unbox<T: Decodable>(_ raw: Any, as type: T.Type, at path: [any CodingKey]) throws -> T {
        let raw = unwrapOptional(raw)
        if let scalar = T.self as? any FirestoreDecodableScalar.Type {
            try requireValue(raw, T.self, at: path)
            return try scalar.firestoreDecoded(from: raw, options: options, at: path) as! T
        }
        if T.self == Timestamp.self || T.self == GeoPoint.self || T.self == DocumentReference.self || T.self == VectorValue.self {
            try requireValue(raw, T.self, at: path)
            if let same = raw as? T { return same }
            // Otherwise the type's own keyed form, e.g. `{seconds, nanoseconds}`, as in the SDK.
            if T.self == DocumentReference.self { throw typeMismatch(T.self, raw, at: path) }
        }
        if T.self == Date.self {
            try requireValue(raw, T.self, at: path)
            return try unboxDate(raw, at: path) as! T
        }
        if T.self == Data.self {
            try requireValue(raw, T.self, at: path)
            return try unboxData(raw, at: path) as! T
        }
        if T.self == URL.self {
            try requireValue(raw, T.self, at: path)
            guard let url = URL(string: try String.firestoreDecoded(from: raw, options: options, at: path)) else {
                throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "Invalid URL string."))
            }
            return url as! T
        }
        if T.self == Decimal.self {
            try requireValue(raw, T.self, at: path)
            switch FirestoreNumber(raw) {
            case .int(let i)?: return Decimal(i) as! T
            case .uint(let u)?: return Decimal(u) as! T
            case .double(let d)?: return Decimal(d) as! T
            case .bool?, nil: throw typeMismatch(T.self, raw, at: path)
            }
        }
        if let dictionaryType = T.self as? any StringKeyedDecodableDictionary.Type {
            try requireValue(raw, T.self, at: path)
            guard let map = raw as? [String: Any] else { throw typeMismatch(T.self, raw, at: path) }
            return try dictionaryType.decodeEntries(map, decoder: self, at: path) as! T
        }
        return try T(from: child(raw, at: path))
    }

    /// `valueNotFound` for null where a value is required.
    private func requireValue(_ raw: Any, _ type: Any.Type, at path: [any CodingKey]) throws {
        if raw is NSNull {
            throw DecodingError.valueNotFound(type, .init(codingPath: path, debugDescription: "Expected \(type) value but found null instead."))
        }
    }

    private func unboxDate(_ raw: Any, at path: [any CodingKey]) throws -> Date {
        switch options.date {
        case .timestamp:
            if let timestamp = raw as? Timestamp { return timestamp.dateValue() }
            if let date = raw as? Date { return date }
            return try Timestamp(from: child(raw, at: path)).dateValue()
        case .deferredToDate:
            return try Date(from: child(raw, at: path))
        case .secondsSince1970:
            return Date(timeIntervalSince1970: try Double.firestoreDecoded(from: raw, options: options, at: path))
        case .millisecondsSince1970:
            return Date(timeIntervalSince1970: try Double.firestoreDecoded(from: raw, options: options, at: path) / 1000)
        case .iso8601:
            let string = try String.firestoreDecoded(from: raw, options: options, at: path)
            guard let date = try? Date.ISO8601FormatStyle().parse(string) else {
                throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "Expected date string to be ISO8601-formatted."))
            }
            return date
        case .formatted(let formatter):
            let string = try String.firestoreDecoded(from: raw, options: options, at: path)
            guard let date = formatter.date(from: string) else {
                throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "Date string does not match format expected by formatter."))
            }
            return date
        case .custom(let decode):
            return try decode(child(raw, at: path))
        }
    }

    private func unboxData(_ raw: Any, at path: [any CodingKey]) throws -> Data {
        switch options.data {
        case .blob:
            if let data = raw as? Data { return data }
            // Data written with `.base64` (SDK 10.0–10.3) still reads back.
            if let string = raw as? String, let data = Data(base64Encoded: string) { return data }
            throw typeMismatch(Data.self, raw, at: path)
        case .base64:
            guard let string = raw as? String else { throw typeMismatch(Data.self, raw, at: path) }
            guard let data = Data(base64Encoded: string) else {
                throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "Encountered Data is not valid Base64."))
            }
            return data
        case .deferredToData:
            return try Data(from: child(raw, at: path))
        case .custom(let decode):
            return try decode(child(raw, at: path))
        }
    }

    // MARK: SingleValueDecodingContainer

    func decodeNil() -> Bool { value is NSNull }
    func decode(_ type: Bool.Type) throws -> Bool { try unbox(value, as: type, at: codingPath) }
    func decode(_ type: String.Type) throws -> String { try unbox(value, as: type, at: codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try unbox(value, as: type, at: codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try unbox(value, as: type, at: codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try unbox(value, as: type, at: codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try unbox(value, as: type, at: codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try unbox(value, as: type, at: codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try unbox(value, as: type, at: codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try unbox(value, as: type, at: codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try unbox(value, as: type, at: codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try unbox(value, as: type, at: codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try unbox(value, as: type, at: codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try unbox(value, as: type, at: codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try unbox(value, as: type, at: codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try unbox(value, as: type, at: codingPath) }
}

// MARK: - Containers

struct FirestoreKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: FirestoreDecoding
    /// The map's fields, already renamed by the key strategy.
    let fields: [String: Any]

    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { fields.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { fields[key.stringValue] != nil }

    private func field(_ key: Key) throws -> Any {
        guard let value = fields[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return value
    }

    private func decodeField<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        try decoder.unbox(try field(key), as: type, at: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool { unwrapOptional(try field(key)) is NSNull }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decodeField(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decodeField(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decodeField(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decodeField(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decodeField(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decodeField(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decodeField(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decodeField(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decodeField(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decodeField(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decodeField(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decodeField(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decodeField(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decodeField(type, key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        // @DocumentID comes from the document's reference; a field of the same name is ignored.
        if T.self is any FirestoreUncodedProperty.Type { return try T(from: decoder) }
        return try decodeField(type, key)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder.child(try field(key), at: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.child(try field(key), at: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Swift.Decoder {
        let key = FirestoreCodingKey.super
        return decoder.child(fields[key.stringValue] ?? NSNull(), at: codingPath + [key])
    }

    func superDecoder(forKey key: Key) throws -> any Swift.Decoder {
        decoder.child(fields[key.stringValue] ?? NSNull(), at: codingPath + [key])
    }
}

struct FirestoreUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let decoder: FirestoreDecoding
    let elements: [Any]
    private(set) var currentIndex = 0

    init(decoder: FirestoreDecoding, elements: [Any]) {
        self.decoder = decoder
        self.elements = elements
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private var currentPath: [any CodingKey] { codingPath + [FirestoreCodingKey(index: currentIndex)] }

    private func checkNotAtEnd(_ type: Any.Type) throws {
        if isAtEnd {
            throw DecodingError.valueNotFound(type, .init(codingPath: currentPath, debugDescription: "Unkeyed container is at end."))
        }
    }

    /// The next element, consumed.
    private mutating func next(_ type: Any.Type) throws -> (value: Any, path: [any CodingKey]) {
        try checkNotAtEnd(type)
        defer { currentIndex += 1 }
        return (elements[currentIndex], currentPath)
    }

    /// Decodes the next element; like JSONDecoder, the index only advances on success.
    private mutating func decodeElement<T: Decodable>(_ type: T.Type) throws -> T {
        try checkNotAtEnd(type)
        let value = try decoder.unbox(elements[currentIndex], as: type, at: currentPath)
        currentIndex += 1
        return value
    }

    mutating func decodeNil() throws -> Bool {
        try checkNotAtEnd(Any?.self)
        guard unwrapOptional(elements[currentIndex]) is NSNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try decodeElement(type) }
    mutating func decode(_ type: String.Type) throws -> String { try decodeElement(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try decodeElement(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try decodeElement(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try decodeElement(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try decodeElement(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try decodeElement(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try decodeElement(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try decodeElement(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try decodeElement(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeElement(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeElement(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeElement(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeElement(type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeElement(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (value, path) = try next(KeyedDecodingContainer<NestedKey>.self)
        return try decoder.child(value, at: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (value, path) = try next((any UnkeyedDecodingContainer).self)
        return try decoder.child(value, at: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Swift.Decoder {
        let (value, path) = try next((any Swift.Decoder).self)
        return decoder.child(value, at: path)
    }
}

// MARK: - Scalars

/// A number as found in decoded data: `NSNumber` from snapshots (classified by `objCType`,
/// since on Linux a boolean `NSNumber` also casts to `Int`), or a Swift native from a
/// dictionary built in code.
enum FirestoreNumber {
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    case double(Double)

    init?(_ raw: Any) {
        if type(of: raw) is NSNumber.Type, let n = raw as? NSNumber {
            switch n.objCType.pointee {
            case 0x63, 0x42: self = .bool(n.boolValue)  // 'c' (CFBoolean), 'B'
            case 0x66, 0x64: self = .double(n.doubleValue)  // 'f', 'd'
            case 0x51, 0x4C: self = .uint(n.uint64Value)  // 'Q', 'L'
            default: self = .int(n.int64Value)
            }
        } else if let i = raw as? any BinaryInteger {
            if let signed = Int64(exactly: i) {
                self = .int(signed)
            } else if let unsigned = UInt64(exactly: i) {
                self = .uint(unsigned)
            } else {
                return nil
            }
        } else if let f = raw as? any BinaryFloatingPoint {
            self = .double(Double(f))
        } else if let b = raw as? Bool {
            self = .bool(b)
        } else if let d = raw as? Decimal {
            self = .double(NSDecimalNumber(decimal: d).doubleValue)
        } else {
            return nil
        }
    }
}

/// Swift's built-in scalars, read from Firestore booleans, numbers and strings.
protocol FirestoreDecodableScalar {
    static func firestoreDecoded(from raw: Any, options: FirestoreDecodingOptions, at path: [any CodingKey]) throws -> Self
}

extension Bool: FirestoreDecodableScalar {
    static func firestoreDecoded(from raw: Any, options: FirestoreDecodingOptions, at path: [any CodingKey]) throws -> Bool {
        guard case .bool(let b)? = FirestoreNumber(raw) else { throw typeMismatch(Bool.self, raw, at: path) }
        return b
    }
}

extension String: FirestoreDecodableScalar {
    static func firestoreDecoded(from raw: Any, options: FirestoreDecodingOptions, at path: [any CodingKey]) throws -> String {
        guard let s = raw as? String else { throw typeMismatch(String.self, raw, at: path) }
        return s
    }
}

extension FirestoreDecodableScalar where Self: FixedWidthInteger {
    /// Any integer, or integral double, that fits (`dataCorrupted` otherwise); not booleans.
    static func firestoreDecoded(from raw: Any, options: FirestoreDecodingOptions, at path: [any CodingKey]) throws -> Self {
        let result: Self?
        switch FirestoreNumber(raw) {
        case .int(let i)?: result = Self(exactly: i)
        case .uint(let u)?: result = Self(exactly: u)
        case .double(let d)?: result = Self(exactly: d)
        case .bool?, nil: throw typeMismatch(Self.self, raw, at: path)
        }
        guard let result else {
            throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "Parsed number <\(raw)> does not fit in \(Self.self)."))
        }
        return result
    }
}

extension FirestoreDecodableScalar where Self: BinaryFloatingPoint {
    /// Any number (integers may lose precision); with `.convertFromString`, the agreed strings.
    static func firestoreDecoded(from raw: Any, options: FirestoreDecodingOptions, at path: [any CodingKey]) throws -> Self {
        switch FirestoreNumber(raw) {
        case .int(let i)?: return Self(i)
        case .uint(let u)?: return Self(u)
        case .double(let d)?:
            let value = Self(d)
            if d.isFinite && !value.isFinite {
                throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "Parsed number <\(d)> does not fit in \(Self.self)."))
            }
            return value
        case .bool?:
            throw typeMismatch(Self.self, raw, at: path)
        case nil:
            if let s = raw as? String, case let .convertFromString(positive, negative, nan) = options.nonConformingFloat {
                if s == positive { return .infinity }
                if s == negative { return -.infinity }
                if s == nan { return .nan }
            }
            throw typeMismatch(Self.self, raw, at: path)
        }
    }
}

extension Int: FirestoreDecodableScalar {}
extension Int8: FirestoreDecodableScalar {}
extension Int16: FirestoreDecodableScalar {}
extension Int32: FirestoreDecodableScalar {}
extension Int64: FirestoreDecodableScalar {}
extension UInt: FirestoreDecodableScalar {}
extension UInt8: FirestoreDecodableScalar {}
extension UInt16: FirestoreDecodableScalar {}
extension UInt32: FirestoreDecodableScalar {}
extension UInt64: FirestoreDecodableScalar {}
extension Double: FirestoreDecodableScalar {}
extension Float: FirestoreDecodableScalar {}

/// `[String: T]`, whose entries the decoder reads itself to keep the keys as they are.
protocol StringKeyedDecodableDictionary {
    static func decodeEntries(_ map: [String: Any], decoder: FirestoreDecoding, at path: [any CodingKey]) throws -> Self
}

extension Dictionary: StringKeyedDecodableDictionary where Key == String, Value: Decodable {
    static func decodeEntries(_ map: [String: Any], decoder: FirestoreDecoding, at path: [any CodingKey]) throws -> Self {
        var result: [String: Value] = Dictionary(minimumCapacity: map.count)
        for (key, raw) in map {
            result[key] = try decoder.unbox(raw, as: Value.self, at: path + [FirestoreCodingKey(stringValue: key)])
        }
        return result
    }
}

/// `typeMismatch` naming what was found instead.
func typeMismatch(_ expected: Any.Type, _ raw: Any, at path: [any CodingKey]) -> DecodingError {
    .typeMismatch(expected, .init(codingPath: path, debugDescription: "Expected to decode \(expected) but found \(describe(raw)) instead."))
}

/// "a string", "a number"… for error messages.
private func describe(_ raw: Any) -> String {
    if raw is NSNull { return "a null value" }
    if let number = FirestoreNumber(raw) {
        if case .bool = number { return "a boolean" }
        return "a number"
    }
    if raw is String { return "a string" }
    if raw is [Any] { return "an array" }
    if raw is [String: Any] { return "a map" }
    return "\(type(of: raw))"
}
