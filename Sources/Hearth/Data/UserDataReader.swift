import Foundation
import HearthCore

/// Turns the Swift values app code passes (`[String: Any]` with natives, NSNumber, Date,
/// FieldValue sentinels…) into engine values, field masks and transforms — the SDK's
/// `FSTUserDataReader`. Invalid input is a programmer error in the SDK; here each check
/// throws a `FirestoreError` carrying the SDK's message, and the public API turns it into
/// a programmer error.
struct UserDataReader {
    let firestore: Firestore

    /// What the parsed data is for; decides which sentinels are allowed where.
    enum Source {
        case set, mergeSet, update, argument
    }

    /// Parsing state for one write or argument.
    private struct Context {
        let source: Source
        /// The field path being parsed, as a stack (pushed and popped, never copied on the
        /// hot path).
        var path: [String] = []
        /// Inside an array element. The SDK has no field paths there: no merge leaves and no
        /// "(found in field …)" in messages.
        var insideArray = false
        var transforms: [FieldTransform] = []
        /// Paths of leaves (merge) or `delete()` sentinels, for the field mask.
        var maskPaths: [HearthCore.FieldPath] = []
    }

    // MARK: Writes

    /// `setData(_:)`: replace the document.
    func setWrite(_ data: [String: Any], document key: DocumentKey) throws(FirestoreError) -> Write {
        var ctx = Context(source: .set)
        let fields = try parseMap(data, ctx: &ctx)
        return Write(key: key, operation: .set(fields), transforms: ctx.transforms)
    }

    /// `setData(_:merge: true)`: the mask is every leaf of the data.
    func mergeWrite(_ data: [String: Any], document key: DocumentKey) throws(FirestoreError) -> Write {
        var ctx = Context(source: .mergeSet)
        let fields = try parseMap(data, ctx: &ctx)
        return Write(key: key, operation: .update(fields, mask: ctx.maskPaths), transforms: ctx.transforms)
    }

    /// `setData(_:mergeFields:)`: only the listed paths are written.
    func mergeFieldsWrite(_ data: [String: Any], mergeFields: [Any], document key: DocumentKey) throws(FirestoreError) -> Write {
        var ctx = Context(source: .mergeSet)
        let all = try parseMap(data, ctx: &ctx)
        var mask: [HearthCore.FieldPath] = []
        for element in mergeFields {
            let p: HearthCore.FieldPath
            switch element {
            case let s as String: p = try HearthCore.FieldPath.parseDotted(s)
            case let fp as FieldPath: p = fp.core
            default: throw .invalidArgument("All elements in mergeFields: must be NSStrings or FIRFieldPaths.")
            }
            let present = all.value(at: p) != nil
                || ctx.maskPaths.contains { p.isPrefix(of: $0) }
                || ctx.transforms.contains { p.isPrefix(of: $0.path) }
            guard present else {
                throw .invalidArgument("Field '\(p.dotted)' is specified in your field mask but missing from your input data.")
            }
            if !mask.contains(p) { mask.append(p) }
        }
        var fields = MapValue()
        for p in mask {
            if let v = all.value(at: p) { fields.setValue(v, at: p) }
        }
        let transforms = ctx.transforms.filter { t in mask.contains { $0.isPrefix(of: t.path) } }
        // A listed path with no data is cleared; its transforms then apply on top.
        return Write(key: key, operation: .update(fields, mask: mask), transforms: transforms)
    }

    /// `updateData(_:)`: keys are dotted paths or `FieldPath`s; each value replaces its path.
    func updateWrite(_ data: [AnyHashable: Any], document key: DocumentKey) throws(FirestoreError) -> Write {
        var ctx = Context(source: .update)
        var fields = MapValue()
        var mask: [HearthCore.FieldPath] = []
        for (key, raw) in data {
            let p: HearthCore.FieldPath
            switch key.base {
            case let s as String: p = try HearthCore.FieldPath.parseDotted(s)
            case let fp as FieldPath: p = fp.core
            default: throw .invalidArgument("Dictionary keys in updateData: must be NSStrings or FIRFieldPaths.")
            }
            let value = unwrapOptional(raw)
            if Swift.type(of: value) == FieldValue.self, case .delete = exactCast(value, to: FieldValue.self).kind {
                mask.append(p)
                continue
            }
            let transformsBefore = ctx.transforms.count
            ctx.path = p.segments
            if let v = try parseValue(value, ctx: &ctx, inArray: false) {
                fields.setValue(v, at: p)
                mask.append(p)
            } else if ctx.transforms.count == transformsBefore {
                mask.append(p)
            }
        }
        return Write(key: key, operation: .update(fields, mask: mask), transforms: ctx.transforms, precondition: .exists(true))
    }

    /// A query argument (filter operand, cursor value): no sentinels; arrays may not nest.
    /// Like the SDK's root argument context it has no field path, so messages name none.
    func argumentValue(_ value: Any) throws(FirestoreError) -> Value {
        var ctx = Context(source: .argument)
        // Sentinels are rejected inside parseValue; a nil here cannot happen.
        guard let v = try parseValue(value, ctx: &ctx, inArray: false) else {
            throw .invalidArgument("Invalid data. Unsupported value")
        }
        return v
    }

    // MARK: Values

    private func parseMap(_ data: [String: Any], ctx: inout Context) throws(FirestoreError) -> MapValue {
        try parseMap(data, ctx: &ctx) { (raw, ctx) throws(FirestoreError) in try parseValue(raw, ctx: &ctx, inArray: false) }
    }

    /// A map whose values have one static type (`[String: String]` literals are common),
    /// parsed without re-boxing it as `[String: Any]` (which hashes every name again).
    private func parseMap<V>(_ data: [String: V], ctx: inout Context,
                             _ parse: (V, inout Context) throws(FirestoreError) -> Value?) throws(FirestoreError) -> MapValue {
        if data.isEmpty && ctx.source == .mergeSet && !ctx.insideArray && !ctx.path.isEmpty {
            // An empty map under merge is a leaf that replaces the target.
            ctx.maskPaths.append(HearthCore.FieldPath(ctx.path))
        }
        var entries: [MapValue.Entry] = []
        entries.reserveCapacity(data.count)
        for (key, raw) in data {
            ctx.path.append(key)
            if let v = try parse(raw, &ctx) {
                entries.append((key, v))
            }
            ctx.path.removeLast()
        }
        return MapValue(unsortedEntries: entries)
    }

    /// Returns nil when the value is a sentinel (recorded in the context instead).
    private func parseValue(_ raw: Any, ctx: inout Context, inArray: Bool) throws(FirestoreError) -> Value? {
        // Exact-type checks first: comparing metatypes is far cheaper than trying casts.
        let type = Swift.type(of: raw)
        if type == String.self { return leaf(.string(exactCast(raw, to: String.self)), &ctx, inArray) }
        if type == Int.self { return leaf(.integer(Int64(exactCast(raw, to: Int.self))), &ctx, inArray) }
        if type == Double.self { return leaf(.double(exactCast(raw, to: Double.self)), &ctx, inArray) }
        if type == Bool.self { return leaf(.boolean(exactCast(raw, to: Bool.self)), &ctx, inArray) }
        if type == [String: Any].self { return .map(try parseMap(exactCast(raw, to: [String: Any].self), ctx: &ctx)) }
        if type == [String].self {
            if inArray { return try parseArray(exactCast(raw, to: [String].self), ctx: &ctx, inArray: true) }
            return leaf(.array(exactCast(raw, to: [String].self).map { .string($0) }), &ctx, inArray)
        }
        if type == Timestamp.self { return leaf(.timestamp(exactCast(raw, to: Timestamp.self).core.truncatedToMicroseconds), &ctx, inArray) }
        if type == [String: String].self {
            return .map(try parseMap(exactCast(raw, to: [String: String].self), ctx: &ctx) { s, ctx in leaf(.string(s), &ctx, false) })
        }
        if type == NSNull.self { return leaf(.null, &ctx, inArray) }
        if type == FieldValue.self { return try sentinel(exactCast(raw, to: FieldValue.self), ctx: &ctx, inArray: inArray) }
        // Only needed for messages; built lazily because joining costs more than parsing.
        var fieldName: String { ctx.path.joined(separator: ".") }
        if let s = raw as? String {
            return leaf(.string(s), &ctx, inArray)
        }
        if type is NSNumber.Type, let n = raw as? NSNumber {
            return leaf(try number(n, found: found(fieldName, ctx)), &ctx, inArray)
        }
        switch raw {
        case let v as Int: return leaf(.integer(Int64(v)), &ctx, inArray)
        case let v as Bool: return leaf(.boolean(v), &ctx, inArray)
        case let v as Double: return leaf(.double(v), &ctx, inArray)
        case let v as [String: Any]:
            return .map(try parseMap(v, ctx: &ctx))
        case let v as [Any]:
            return leaf(try parseArray(v, ctx: &ctx, inArray: inArray), &ctx, inArray)
        case let v as FieldValue:
            return try sentinel(v, ctx: &ctx, inArray: inArray)
        case let v as Timestamp: return leaf(.timestamp(v.core.truncatedToMicroseconds), &ctx, inArray)
        case let v as Date: return leaf(.timestamp(HearthCore.Timestamp(date: v).truncatedToMicroseconds), &ctx, inArray)
        case let v as Data: return leaf(.bytes(v), &ctx, inArray)
        case let v as GeoPoint: return leaf(.geoPoint(v.core), &ctx, inArray)
        case let v as VectorValue: return leaf(.vector(v.array), &ctx, inArray)
        case let v as DocumentReference:
            guard v.firestore.database.id == firestore.database.id else {
                throw .invalidArgument("Document Reference is for database \(v.firestore.projectID)/\(v.firestore.databaseID) but should be for database \(firestore.projectID)/\(firestore.databaseID)\(found(fieldName, ctx))")
            }
            return leaf(.reference(DocumentName(database: v.firestore.database.id, path: v.key)), &ctx, inArray)
        case is NSNull: return leaf(.null, &ctx, inArray)
        case let v as Int64: return leaf(.integer(v), &ctx, inArray)
        case let v as Int32: return leaf(.integer(Int64(v)), &ctx, inArray)
        case let v as Int16: return leaf(.integer(Int64(v)), &ctx, inArray)
        case let v as Int8: return leaf(.integer(Int64(v)), &ctx, inArray)
        case let v as UInt8: return leaf(.integer(Int64(v)), &ctx, inArray)
        case let v as UInt16: return leaf(.integer(Int64(v)), &ctx, inArray)
        case let v as UInt32: return leaf(.integer(Int64(v)), &ctx, inArray)
        case let v as UInt:
            guard let i = Int64(exactly: v) else { throw .invalidArgument("NSNumber (\(v)) is too large\(found(fieldName, ctx))") }
            return leaf(.integer(i), &ctx, inArray)
        case let v as UInt64:
            guard let i = Int64(exactly: v) else { throw .invalidArgument("NSNumber (\(v)) is too large\(found(fieldName, ctx))") }
            return leaf(.integer(i), &ctx, inArray)
        case let v as Float: return leaf(.double(Double(v)), &ctx, inArray)
        case let v as Decimal: return leaf(.double(NSDecimalNumber(decimal: v).doubleValue), &ctx, inArray)
        case let v as NSDictionary:
            var dict: [String: Any] = [:]
            for (k, value) in v {
                guard let key = k as? String else { throw .invalidArgument("Invalid data. Map keys must be strings\(found(fieldName, ctx))") }
                dict[key] = value
            }
            return .map(try parseMap(dict, ctx: &ctx))
        case let v as NSArray:
            return try parseValue(v.map { $0 }, ctx: &ctx, inArray: inArray)
        default:
            if let optional = raw as? any OptionalBox {
                guard let wrapped = optional.wrapped else { return leaf(.null, &ctx, inArray) }
                return try parseValue(wrapped, ctx: &ctx, inArray: inArray)
            }
            throw .invalidArgument("Unsupported type: \(Swift.type(of: raw))\(found(fieldName, ctx))")
        }
    }

    /// Array elements: no sentinels, no arrays directly inside, no merge leaves.
    private func parseArray(_ v: [Any], ctx: inout Context, inArray: Bool) throws(FirestoreError) -> Value {
        if inArray {
            // The SDK's message names no field: it has no paths inside arrays.
            throw .invalidArgument("Nested arrays are not supported")
        }
        var out: [Value] = []
        out.reserveCapacity(v.count)
        var elementCtx = Context(source: ctx.source, path: ctx.path, insideArray: true)
        for (i, e) in v.enumerated() {
            elementCtx.path.append(String(i))
            if let ev = try parseValue(e, ctx: &elementCtx, inArray: true) { out.append(ev) }
            elementCtx.path.removeLast()
        }
        return .array(out)
    }

    /// Records a merge leaf (its path joins the mask) and passes the value through.
    @inline(__always)
    private func leaf(_ v: Value, _ ctx: inout Context, _ inArray: Bool) -> Value {
        if ctx.source == .mergeSet && !inArray && !ctx.insideArray && !ctx.path.isEmpty {
            ctx.maskPaths.append(HearthCore.FieldPath(ctx.path))
        }
        return v
    }

    /// The SDK's " (found in field a.b)" message suffix; empty inside arrays and for query
    /// arguments (no path).
    private func found(_ field: String, _ ctx: Context) -> String {
        ctx.insideArray || ctx.path.isEmpty ? "" : " (found in field \(field))"
    }

    private func number(_ n: NSNumber, found: String) throws(FirestoreError) -> Value {
        switch n.objCType.pointee {
        case 0x63, 0x42: return .boolean(n.boolValue)  // 'c' (CFBoolean), 'B'
        case 0x66, 0x64: return .double(n.doubleValue)  // 'f', 'd'
        case 0x51, 0x4C:  // 'Q', 'L': unsigned 64-bit
            guard let i = Int64(exactly: n.uint64Value) else {
                throw .invalidArgument("NSNumber (\(n.uint64Value)) is too large\(found)")
            }
            return .integer(i)
        default: return .integer(n.int64Value)
        }
    }

    private func sentinel(_ v: FieldValue, ctx: inout Context, inArray: Bool) throws(FirestoreError) -> Value? {
        let path = ctx.path
        // Only messages and array operands name the field: joined when one needs it.
        var field: String { path.joined(separator: ".") }
        // The SDK's order: not a write at all, then inside an array (where it has no path).
        if ctx.source == .argument {
            throw .invalidArgument("\(v.methodName) can only be used with updateData() and setData()\(found(field, ctx))")
        }
        if inArray || ctx.insideArray {
            throw .invalidArgument("\(v.methodName) is not currently supported inside arrays")
        }
        let fp = HearthCore.FieldPath(path)
        switch ctx.source {
        case .set where { if case .delete = v.kind { return true } else { return false } }():
            throw .invalidArgument("FieldValue.delete() can only be used with updateData() and setData() with merge:true (found in field \(field))")
        case .update where { if case .delete = v.kind { return true } else { return false } }():
            throw .invalidArgument("FieldValue.delete() can only appear at the top level of your update data (found in field \(field))")
        default:
            break
        }
        switch v.kind {
        case .delete:
            ctx.maskPaths.append(fp)
        case .serverTimestamp:
            ctx.transforms.append(FieldTransform(path: fp, kind: .serverTimestamp))
        case .increment(let n):
            ctx.transforms.append(FieldTransform(path: fp, kind: .increment(n)))
        case .maximum(let n):
            ctx.transforms.append(FieldTransform(path: fp, kind: .maximum(n)))
        case .minimum(let n):
            ctx.transforms.append(FieldTransform(path: fp, kind: .minimum(n)))
        case .arrayUnion(let elements):
            ctx.transforms.append(FieldTransform(path: fp, kind: .appendMissingElements(try arrayElements(elements, field: field))))
        case .arrayRemove(let elements):
            ctx.transforms.append(FieldTransform(path: fp, kind: .removeAllFromArray(try arrayElements(elements, field: field))))
        }
        return nil
    }

    /// Elements are arguments, not writes: a sentinel among them is rejected as such.
    private func arrayElements(_ elements: [Any], field: String) throws(FirestoreError) -> [Value] {
        var out: [Value] = []
        for (i, e) in elements.enumerated() {
            var elementCtx = Context(source: .argument, path: [field, String(i)], insideArray: true)
            guard let v = try parseValue(e, ctx: &elementCtx, inArray: true) else { continue }
            out.append(v)
        }
        return out
    }
}

/// Lets the reader see through `Optional`s boxed in `Any` (`["bio": user.bio]`): `.none`
/// is null, as on Darwin where it bridges to NSNull.
protocol OptionalBox {
    var wrapped: Any? { get }
}

extension Optional: OptionalBox {
    var wrapped: Any? {
        switch self {
        case .some(let v): v
        case .none: nil
        }
    }
}

/// Unwraps nested optionals boxed in `Any`; `.none` becomes `NSNull()`.
func unwrapOptional(_ value: Any) -> Any {
    // The common field types first, by metatype: the protocol cast below costs far more.
    let type = Swift.type(of: value)
    if type == String.self || type == Int.self || type == Double.self || type == Bool.self
        || type == FieldValue.self || type == [String: Any].self || type == Timestamp.self || type == [Any].self {
        return value
    }
    guard let box = value as? any OptionalBox else { return value }
    guard let w = box.wrapped else { return NSNull() }
    return unwrapOptional(w)
}
