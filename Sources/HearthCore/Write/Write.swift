/// One write of a commit, with the semantics of `google.firestore.v1.Write`: a set, an
/// update with a field mask, a delete or a verify, then field transforms, guarded by an
/// optional precondition.
public struct Write: Sendable, Equatable {
    public enum Operation: Sendable, Equatable {
        /// Replaces the whole document (creating it if missing).
        case set(MapValue)
        /// Mask paths present in the fields are set (deep); mask paths absent from the
        /// fields are deleted; everything else is kept. Creates the document if missing
        /// (guard with `.exists(true)` for update semantics).
        case update(MapValue, mask: [FieldPath])
        /// Deletes the document; deleting a missing document succeeds.
        case delete
        /// Checks only the precondition (transaction read validation).
        case verify
        /// Only the transforms (the document is created if missing).
        case transformOnly
    }

    /// The document written, with its storage encoding (a front end that already holds it
    /// passes it in rather than have the commit encode the path again).
    public let key: DocumentKey
    public var operation: Operation
    public var transforms: [FieldTransform]
    public var precondition: Precondition?

    public var path: ResourcePath { key.path }

    public init(key: DocumentKey, operation: Operation, transforms: [FieldTransform] = [], precondition: Precondition? = nil) {
        self.key = key
        self.operation = operation
        self.transforms = transforms
        self.precondition = precondition
    }

    public init(path: ResourcePath, operation: Operation, transforms: [FieldTransform] = [], precondition: Precondition? = nil) {
        self.init(key: DocumentKey(path), operation: operation, transforms: transforms, precondition: precondition)
    }

    public static func set(_ path: ResourcePath, _ fields: MapValue, transforms: [FieldTransform] = []) -> Write {
        Write(path: path, operation: .set(fields), transforms: transforms)
    }

    /// `updateData` semantics: the document must exist.
    public static func update(_ path: ResourcePath, _ fields: MapValue, mask: [FieldPath], transforms: [FieldTransform] = []) -> Write {
        Write(path: path, operation: .update(fields, mask: mask), transforms: transforms, precondition: .exists(true))
    }

    public static func delete(_ path: ResourcePath, precondition: Precondition? = nil) -> Write {
        delete(DocumentKey(path), precondition: precondition)
    }

    public static func delete(_ key: DocumentKey, precondition: Precondition? = nil) -> Write {
        Write(key: key, operation: .delete, precondition: precondition)
    }
}

/// A condition on the stored document that must hold for a write to apply.
public enum Precondition: Sendable, Equatable {
    case exists(Bool)
    case updateTime(Timestamp)
}

/// The outcome of one write: the document's update time after it (nil after a delete or
/// verify), and one value per transform (the resulting value; null for array transforms).
public struct WriteResult: Sendable, Equatable {
    public var updateTime: Timestamp?
    public var transformResults: [Value]

    public init(updateTime: Timestamp?, transformResults: [Value]) {
        self.updateTime = updateTime
        self.transformResults = transformResults
    }
}

/// The outcome of a commit.
public struct CommitResult: Sendable, Equatable {
    public var commitTime: Timestamp
    public var writeResults: [WriteResult]
    /// Per write, the document its path holds once the commit is applied (nil: none) — what
    /// an UpdateDocument answers with, without reading the state again. Shared, not copied.
    public var documents: [Document?] = []
}

extension Write {
    /// Checks the write itself, before it meets any stored state: the path, written field
    /// names and values, the mask and the transforms.
    public func validate(database: DatabaseID) throws(FirestoreError) {
        _ = try validated(database: database)
    }

    /// `validate`, and the write as production stores it: timestamps keep microseconds
    /// (production and the official emulator drop any finer digits), so a value written
    /// with nanoseconds reads back truncated, whatever front end sent it.
    public func validated(database: DatabaseID) throws(FirestoreError) -> Write {
        try DocumentLimits.validateDocumentPath(path, database: database)
        var truncate = false
        switch operation {
        case .set(let fields):
            truncate = try Self.validateFields(fields, prefix: [])
        case .update(let fields, let mask):
            truncate = try Self.validateFields(fields, prefix: [])
            for p in mask {
                guard !p.isEmpty else { throw .invalidArgument("Invalid field path in update mask: empty path.") }
                try p.validateForWrite()
            }
        case .verify:
            if precondition == nil { throw .invalidArgument("a verify must contain a precondition") }
        case .delete, .transformOnly:
            break
        }
        for t in transforms { try t.validate() }
        // Two transforms of one field apply in order; a field and one inside it cannot both be.
        for (i, t) in transforms.enumerated() {
            for u in transforms[..<i] where u.path != t.path && (u.path.isPrefix(of: t.path) || t.path.isPrefix(of: u.path)) {
                let outer = u.path.isPrefix(of: t.path) ? u.path : t.path
                throw .invalidArgument("Cannot transform property \(outer.serverFormat) and its nested property at the same time.")
            }
        }
        guard truncate else { return self }
        var copy = self
        switch operation {
        case .set(let fields): copy.operation = .set(fields.truncatingTimestamps())
        case .update(let fields, let mask): copy.operation = .update(fields.truncatingTimestamps(), mask: mask)
        case .delete, .verify, .transformOnly: break
        }
        return copy
    }

    /// Field names must be writable and arrays may not directly contain arrays. The path
    /// is only materialised for an error message. True when the fields hold a timestamp
    /// finer than a microsecond (rare: the common case costs one walk, no copy).
    @discardableResult
    static func validateFields(_ fields: MapValue, prefix: [String]) throws(FirestoreError) -> Bool {
        var subMicrosecond = false
        // Each segment of the prefix and its dot: a field's whole path is at most 1,500
        // bytes too (production's "Maximum size of a field path"; the official emulator
        // refuses a longer nested one).
        let prefixBytes = prefix.reduce(0) { $0 + $1.utf8.count + 1 }
        for entry in fields.entries {
            let pathBytes = prefixBytes + entry.key.utf8.count
            if !isWritableName(entry.key) || pathBytes > maxPathBytes || containsNestedArray(entry.value)
                || !fieldsValid(entry.value, pathBytes: pathBytes) {
                let path = FieldPath(prefix + [entry.key])
                try FieldPath([entry.key]).validateForWriteNaming(fullPath: path)
                if pathBytes > maxPathBytes {
                    throw .invalidArgument("Field path is longer than 1500 bytes (found in field \(ResourcePath.truncatedForMessage(path.dotted))).")
                }
                try validateValue(entry.value, at: path)
                // Valid names and arrays: what fieldsValid stopped at was a timestamp.
                subMicrosecond = true
            }
        }
        return subMicrosecond
    }

    /// The most bytes a field's path may have, its dots included.
    static let maxPathBytes = 1500

    /// Cheap check of one name: non-empty, not `__x__`, at most 1,500 bytes.
    @inline(__always)
    static func isWritableName(_ name: String) -> Bool {
        let u = name.utf8
        let n = u.count
        if n == 0 || n > 1500 { return false }
        if n >= 4, u.first == 0x5F, u.last == 0x5F,
           u[u.index(after: u.startIndex)] == 0x5F, u[u.index(u.endIndex, offsetBy: -2)] == 0x5F { return false }
        return true
    }

    /// True when every name below `v` is writable (arrays' maps included) and no timestamp
    /// has digits below a microsecond.
    private static func fieldsValid(_ v: Value, pathBytes: Int) -> Bool {
        switch v {
        case .map(let m):
            return m.entries.allSatisfy {
                let bytes = pathBytes + 1 + $0.key.utf8.count
                return bytes <= maxPathBytes && isWritableName($0.key) && !containsNestedArray($0.value) && fieldsValid($0.value, pathBytes: bytes)
            }
        case .array(let a): return a.allSatisfy { fieldsValid($0, pathBytes: pathBytes) }
        case .timestamp(let t): return t.nanos % 1000 == 0
        default: return true
        }
    }

    private static func containsNestedArray(_ v: Value) -> Bool {
        guard case .array(let a) = v else { return false }
        return a.contains { if case .array = $0 { return true } else { return false } }
    }

    static func validateValue(_ value: Value, at path: FieldPath) throws(FirestoreError) {
        switch value {
        case .map(let m):
            try validateFields(m, prefix: path.segments)
        case .array(let elements):
            for e in elements {
                switch e {
                case .array:
                    throw .invalidArgument("Invalid data. Nested arrays are not supported (found in field \(path.dotted))")
                case .map(let m):
                    try validateFields(m, prefix: path.segments)
                default:
                    break
                }
            }
        case .double, .integer, .null, .boolean, .timestamp, .string, .bytes, .reference, .geoPoint, .vector:
            break
        }
    }
}

extension FieldPath {
    /// Validates a single written name, naming the full path in the message.
    func validateForWriteNaming(fullPath: FieldPath) throws(FirestoreError) {
        guard let name = segments.first else { return }
        let n = name.utf8.count
        if n == 0 {
            throw .invalidArgument("Invalid data. Document fields must not be empty (found in field \(fullPath.dotted))")
        }
        if n >= 4, name.utf8.starts(with: "__".utf8), name.utf8.reversed().starts(with: "__".utf8) {
            throw .invalidArgument("Invalid data. Document fields cannot begin and end with \"__\" (found in field \(fullPath.dotted))")
        }
        if n > 1500 {
            throw .invalidArgument("Field name is longer than 1500 bytes (found in field \(ResourcePath.truncatedForMessage(fullPath.dotted))).")
        }
    }
}
