/// A server-side transform of one field (`DocumentTransform.FieldTransform`).
public struct FieldTransform: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case serverTimestamp
        case increment(Value)
        case maximum(Value)
        case minimum(Value)
        /// `arrayUnion`: appends each element not already present.
        case appendMissingElements([Value])
        /// `arrayRemove`: removes every occurrence of each element.
        case removeAllFromArray([Value])
    }

    public var path: FieldPath
    public var kind: Kind

    public init(path: FieldPath, kind: Kind) {
        self.path = path
        self.kind = kind
    }

    func validate() throws(FirestoreError) {
        guard !path.isEmpty else { throw .invalidArgument("Invalid field path in transform: empty path.") }
        try path.validateForWrite()
        switch kind {
        case .serverTimestamp:
            break
        case .increment(let v), .maximum(let v), .minimum(let v):
            guard v.isNumber else {
                throw .invalidArgument("Input must be int64 or double.")
            }
        case .appendMissingElements(let elements), .removeAllFromArray(let elements):
            for e in elements {
                if case .array = e {
                    throw .invalidArgument("Invalid data. Nested arrays are not supported (found in field \(path.dotted))")
                }
                try Write.validateValue(e, at: path)
            }
        }
    }

    /// The new value of the field given its current value (nil when missing).
    public func apply(to current: Value?, commitTime: Timestamp) -> Value {
        switch kind {
        case .serverTimestamp:
            return .timestamp(commitTime)
        case .increment(let operand):
            guard let current, current.isNumber else { return operand }
            return Self.add(current, operand)
        case .maximum(let operand):
            guard let current, current.isNumber else { return operand }
            if current.isNaN || operand.isNaN { return .double(.nan) }
            return Value.compare(operand, current) > 0 ? operand : current
        case .minimum(let operand):
            guard let current, current.isNumber else { return operand }
            if current.isNaN || operand.isNaN { return .double(.nan) }
            return Value.compare(operand, current) < 0 ? operand : current
        case .appendMissingElements(let elements):
            var array = current?.arrayValue ?? []
            for e in elements where !array.contains(where: { Value.transformEquals($0, e) }) {
                array.append(e)
            }
            return .array(array)
        case .removeAllFromArray(let elements):
            let array = current?.arrayValue ?? []
            return .array(array.filter { a in !elements.contains { Value.transformEquals(a, $0) } })
        }
    }

    /// The value reported in `WriteResult.transform_results` (null for array transforms).
    public func result(newValue: Value) -> Value {
        switch kind {
        case .appendMissingElements, .removeAllFromArray: .null
        default: newValue
        }
    }

    /// int + int saturates at the int64 bounds; anything with a double is IEEE addition.
    static func add(_ a: Value, _ b: Value) -> Value {
        switch (a, b) {
        case let (.integer(x), .integer(y)):
            let (sum, overflow) = x.addingReportingOverflow(y)
            if overflow { return .integer(y > 0 ? .max : .min) }
            return .integer(sum)
        case let (.integer(x), .double(y)): return .double(Double(x) + y)
        case let (.double(x), .integer(y)): return .double(x + Double(y))
        case let (.double(x), .double(y)): return .double(x + y)
        default: return b
        }
    }
}
