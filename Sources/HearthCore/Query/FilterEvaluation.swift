/// Whether a document satisfies a filter, operator by operator as production does
/// (docs/semantics.md#filters): a missing field never matches; range filters are type-bracketed and
/// never match NaN; `!=` and `not-in` exclude null; null and NaN are matched only by the
/// unary filters.
extension QueryFilter {
    public func matches(_ document: Document) -> Bool {
        switch self {
        case .composite(.and, let children): return children.allSatisfy { $0.matches(document) }
        case .composite(.or, let children): return children.contains { $0.matches(document) }
        case .unary(let path, let op):
            guard let v = document.queryValue(at: path) else { return false }
            return Self.unaryMatches(v, op)
        case .field(let path, let op, let operand):
            guard let v = document.queryValue(at: path) else { return false }
            return Self.fieldMatches(v, op, operand)
        }
    }

    static func unaryMatches(_ v: Value, _ op: UnaryOperator) -> Bool {
        switch op {
        case .isNull: if case .null = v { return true } else { return false }
        case .isNaN: return v.isNaN
        case .isNotNull: if case .null = v { return false } else { return true }
        case .isNotNaN:
            if case .null = v { return false }
            return !v.isNaN
        }
    }

    static func fieldMatches(_ v: Value, _ op: FieldOperator, _ operand: Value) -> Bool {
        switch op {
        case .equal:
            // Null and NaN are matched only by the unary filters (the SDKs send those); a
            // field filter comparing with null or NaN matches nothing (observed on the
            // official emulator).
            if operand.isNullValue || v.isNullValue { return false }
            return Value.firestoreEquals(v, operand)
        case .notEqual:
            // `!= null` as a field filter matches nothing (emulator); `!= NaN` keeps NaN
            // values, since NaN equals nothing (the SDKs send IS_NOT_NAN instead).
            if operand.isNullValue || v.isNullValue { return false }
            return !Value.firestoreEquals(v, operand)
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            return rangeMatches(v, op, operand)
        case .arrayContains:
            guard case .array(let elements) = v, !operand.isNullValue else { return false }
            return elements.contains { Value.firestoreEquals($0, operand) }
        case .arrayContainsAny:
            guard case .array(let elements) = v, case .array(let wanted) = operand else { return false }
            return wanted.contains { w in !w.isNullValue && elements.contains { Value.firestoreEquals($0, w) } }
        case .in:
            guard case .array(let list) = operand, !v.isNullValue else { return false }
            return list.contains { Value.firestoreEquals(v, $0) }
        case .notIn:
            guard case .array(let list) = operand, !v.isNullValue else { return false }
            if list.contains(where: \.isNullValue) { return false }
            // A listed NaN excludes NaN values, as production answers (the official emulator
            // keeps them: known-differences.json, not-in-nan).
            if v.isNaN { return !list.contains(where: \.isNaN) }
            return !list.contains { Value.firestoreEquals(v, $0) }
        }
    }

    /// `<`, `<=`, `>`, `>=`: only values of the operand's type bracket; never NaN or null
    /// (a null or NaN operand matches nothing, as on the official emulator).
    static func rangeMatches(_ v: Value, _ op: FieldOperator, _ operand: Value) -> Bool {
        guard v.typeOrder == operand.typeOrder, !v.isNaN, !operand.isNaN, !operand.isNullValue else { return false }
        let c = Value.compare(v, operand)
        switch op {
        case .lessThan: return c < 0
        case .lessThanOrEqual: return c <= 0
        case .greaterThan: return c > 0
        case .greaterThanOrEqual: return c >= 0
        default: return false
        }
    }
}

extension Value {
    var isNullValue: Bool { if case .null = self { return true } else { return false } }
}

extension Document {
    /// The value a query sees at `path`: the field, or for `__name__` the document's own
    /// name as a reference.
    public func queryValue(at path: FieldPath) -> Value? {
        if path.isDocumentName { return .reference(DocumentName(database: DatabaseID.queryPlaceholder, path: self.path)) }
        return fields.value(at: path)
    }
}

extension DatabaseID {
    /// Document names compared inside one query all belong to the queried database, so the
    /// engine compares only their paths; references built for comparison carry this id and
    /// operands are rewritten to it (see `NormalizedQuery`).
    static let queryPlaceholder = DatabaseID(project: "", database: "")
}
