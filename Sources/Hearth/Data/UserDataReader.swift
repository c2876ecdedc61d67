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
        var transforms: [FieldTransform] = []
        /// Paths of leaves (merge) or `delete()` sentinels, for the field mask.
        var maskPaths: [HearthCore.FieldPath] = []
    }

    // MARK: Writes

    /// `setData(_:)`: replace the document.
    func setWrite(_ data: [String: Any], path: ResourcePath) throws(FirestoreError) -> Write {
        var ctx = Context(source: .set)
        let fields = try parseMap(data, path: [], ctx: &ctx)
        return Write(path: path, operation: .set(fields), transforms: ctx.transforms)
    }

    /// `setData(_:merge: true)`: the mask is every leaf of the data.
    func mergeWrite(_ data: [String: Any], path: ResourcePath) throws(FirestoreError) -> Write {
        var ctx = Context(source: .mergeSet)
        let fields = try parseMap(data, path: [], ctx: &ctx)
        return Write(path: path, operation: .update(fields, mask: ctx.maskPaths), transforms: ctx.transforms)
    }

    /// `setData(_:mergeFields:)`: only the listed paths are written.
    func mergeFieldsWrite(_ data: [String: Any], mergeFields: [Any], path: ResourcePath) throws(FirestoreError) -> Write {
        var ctx = Context(source: .mergeSet)
        let all = try parseMap(data, path: [], ctx: &ctx)
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
        return Write(path: path, operation: .update(fields, mask: mask), transforms: transforms)
    }

    /// `updateData(_:)`: keys are dotted paths or `FieldPath`s; each value replaces its path.
    func updateWrite(_ data: [AnyHashable: Any], path: ResourcePath) throws(FirestoreError) -> Write {
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
            if let sentinel = value as? FieldValue, case .delete = sentinel.kind {
                mask.append(p)
                continue
            }
            let transformsBefore = ctx.transforms.count
            if let v = try parseValue(value, path: p.segments, ctx: &ctx, inArray: false) {
                fields.setValue(v, at: p)
                mask.append(p)
            } else if ctx.transforms.count == transformsBefore {
                mask.append(p)
            }
        }
        return Write(path: path, operation: .update(fields, mask: mask), transforms: ctx.transforms, precondition: .exists(true))
    }

    /// A value used as a query argument or array-transform element (no sentinels).
    func argumentValue(_ value: Any, fieldDescription: String) throws(FirestoreError) -> Value {
        var ctx = Context(source: .argument)
        guard let v = try parseValue(value, path: [fieldDescription], ctx: &ctx, inArray: false) else {
            throw .invalidArgument("Invalid data. Unsupported value (found in field \(fieldDescription))")
        }
        return v
    }

    // MARK: Values

    private func parseMap(_ data: [String: Any], path: [String], ctx: inout Context) throws(FirestoreError) -> MapValue {
        if data.isEmpty && ctx.source == .mergeSet && !path.isEmpty {
            // An empty map under merge is a leaf that replaces the target.
            ctx.maskPaths.append(HearthCore.FieldPath(path))
        }
        var entries: [(String, Value)] = []
        entries.reserveCapacity(data.count)
        for (key, raw) in data {
            var childPath = path
            childPath.append(key)
            if let v = try parseValue(raw, path: childPath, ctx: &ctx, inArray: false) {
                entries.append((key, v))
            }
        }
        entries.sort { compareUTF8($0.0, $1.0) < 0 }
        return MapValue(sortedEntries: entries.map { (key: $0.0, value: $0.1) })
    }

    /// Returns nil when the value is a sentinel (recorded in the context instead).
    private func parseValue(_ raw: Any, path: [String], ctx: inout Context, inArray: Bool) throws(FirestoreError) -> Value? {
        let fieldName = path.joined(separator: ".")
        if let s = raw as? String {
            return leaf(.string(s), path, &ctx, inArray)
        }
        if type(of: raw) is NSNumber.Type, let n = raw as? NSNumber {
            return leaf(try number(n, field: fieldName), path, &ctx, inArray)
        }
        switch raw {
        case let v as Int: return leaf(.integer(Int64(v)), path, &ctx, inArray)
        case let v as Bool: return leaf(.boolean(v), path, &ctx, inArray)
        case let v as Double: return leaf(.double(v), path, &ctx, inArray)
        case let v as [String: Any]:
            let m = try parseMap(v, path: path, ctx: &ctx)
            return .map(m)
        case let v as [Any]:
            if inArray { throw .invalidArgument("Invalid data. Nested arrays are not supported (found in field \(fieldName))") }
            var out: [Value] = []
            out.reserveCapacity(v.count)
            for (i, e) in v.enumerated() {
                if let sentinel = unwrapOptional(e) as? FieldValue {
                    throw .invalidArgument("\(sentinel.methodName) is not currently supported inside arrays (found in field \(fieldName))")
                }
                var elementCtx = Context(source: .argument)
                guard let ev = try parseValue(e, path: path + [String(i)], ctx: &elementCtx, inArray: true) else { continue }
                out.append(ev)
            }
            return leaf(.array(out), path, &ctx, inArray)
        case let v as FieldValue:
            return try sentinel(v, path: path, ctx: &ctx, inArray: inArray)
        case let v as Timestamp: return leaf(.timestamp(v.core.truncatedToMicroseconds), path, &ctx, inArray)
        case let v as Date: return leaf(.timestamp(HearthCore.Timestamp(date: v).truncatedToMicroseconds), path, &ctx, inArray)
        case let v as Data: return leaf(.bytes(v), path, &ctx, inArray)
        case let v as GeoPoint: return leaf(.geoPoint(v.core), path, &ctx, inArray)
        case let v as VectorValue: return leaf(.vector(v.array), path, &ctx, inArray)
        case let v as DocumentReference:
            guard v.firestore.database.id == firestore.database.id else {
                throw .invalidArgument("Document reference is for database \(v.firestore.projectID)/\(v.firestore.databaseID) but should be for database \(firestore.projectID)/\(firestore.databaseID) (found in field \(fieldName))")
            }
            return leaf(.reference(DocumentName(database: v.firestore.database.id, path: v.key)), path, &ctx, inArray)
        case is NSNull: return leaf(.null, path, &ctx, inArray)
        case let v as Int64: return leaf(.integer(v), path, &ctx, inArray)
        case let v as Int32: return leaf(.integer(Int64(v)), path, &ctx, inArray)
        case let v as Int16: return leaf(.integer(Int64(v)), path, &ctx, inArray)
        case let v as Int8: return leaf(.integer(Int64(v)), path, &ctx, inArray)
        case let v as UInt8: return leaf(.integer(Int64(v)), path, &ctx, inArray)
        case let v as UInt16: return leaf(.integer(Int64(v)), path, &ctx, inArray)
        case let v as UInt32: return leaf(.integer(Int64(v)), path, &ctx, inArray)
        case let v as UInt:
            guard let i = Int64(exactly: v) else { throw .invalidArgument("NSNumber (\(v)) is too large (found in field \(fieldName))") }
            return leaf(.integer(i), path, &ctx, inArray)
        case let v as UInt64:
            guard let i = Int64(exactly: v) else { throw .invalidArgument("NSNumber (\(v)) is too large (found in field \(fieldName))") }
            return leaf(.integer(i), path, &ctx, inArray)
        case let v as Float: return leaf(.double(Double(v)), path, &ctx, inArray)
        case let v as Decimal: return leaf(.double(NSDecimalNumber(decimal: v).doubleValue), path, &ctx, inArray)
        case let v as NSDictionary:
            var dict: [String: Any] = [:]
            for (k, value) in v {
                guard let key = k as? String else { throw .invalidArgument("Invalid data. Map keys must be strings (found in field \(fieldName))") }
                dict[key] = value
            }
            return .map(try parseMap(dict, path: path, ctx: &ctx))
        case let v as NSArray:
            return try parseValue(v.map { $0 }, path: path, ctx: &ctx, inArray: inArray)
        default:
            if let optional = raw as? any OptionalBox {
                guard let wrapped = optional.wrapped else { return leaf(.null, path, &ctx, inArray) }
                return try parseValue(wrapped, path: path, ctx: &ctx, inArray: inArray)
            }
            throw .invalidArgument("Unsupported type: \(type(of: raw)) (found in field \(fieldName))")
        }
    }

    /// Records a merge leaf (its path joins the mask) and passes the value through.
    @inline(__always)
    private func leaf(_ v: Value, _ path: [String], _ ctx: inout Context, _ inArray: Bool) -> Value {
        if ctx.source == .mergeSet && !inArray && !path.isEmpty {
            ctx.maskPaths.append(HearthCore.FieldPath(path))
        }
        return v
    }

    private func number(_ n: NSNumber, field: String) throws(FirestoreError) -> Value {
        switch n.objCType.pointee {
        case 0x63, 0x42: return .boolean(n.boolValue)  // 'c' (CFBoolean), 'B'
        case 0x66, 0x64: return .double(n.doubleValue)  // 'f', 'd'
        case 0x51, 0x4C:  // 'Q', 'L': unsigned 64-bit
            guard let i = Int64(exactly: n.uint64Value) else {
                throw .invalidArgument("NSNumber (\(n.uint64Value)) is too large (found in field \(field))")
            }
            return .integer(i)
        default: return .integer(n.int64Value)
        }
    }

    private func sentinel(_ v: FieldValue, path: [String], ctx: inout Context, inArray: Bool) throws(FirestoreError) -> Value? {
        let field = path.joined(separator: ".")
        if inArray {
            throw .invalidArgument("\(v.methodName) is not currently supported inside arrays (found in field \(field))")
        }
        let fp = HearthCore.FieldPath(path)
        switch ctx.source {
        case .argument:
            throw .invalidArgument("\(v.methodName) can only be used with updateData() and setData() (found in field \(field))")
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
            ctx.transforms.append(FieldTransform(path: fp, kind: .appendMissingElements(try arrayElements(elements, field: field, method: v.methodName))))
        case .arrayRemove(let elements):
            ctx.transforms.append(FieldTransform(path: fp, kind: .removeAllFromArray(try arrayElements(elements, field: field, method: v.methodName))))
        }
        return nil
    }

    private func arrayElements(_ elements: [Any], field: String, method: String) throws(FirestoreError) -> [Value] {
        var out: [Value] = []
        for (i, e) in elements.enumerated() {
            var elementCtx = Context(source: .argument)
            if unwrapOptional(e) is FieldValue {
                throw .invalidArgument("\(method) is not currently supported inside arrays (found in field \(field))")
            }
            guard let v = try parseValue(e, path: [field, String(i)], ctx: &elementCtx, inArray: true) else { continue }
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
    guard let box = value as? any OptionalBox else { return value }
    guard let w = box.wrapped else { return NSNull() }
    return unwrapOptional(w)
}
