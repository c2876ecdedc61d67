/// A server timestamp a client has written but no commit has assigned yet, as the mobile
/// SDKs hold it in their local view: the map
/// `{"__type__": "server_timestamp", "__local_write_time__": <time>, "__previous_value__": <v>}`.
/// No stored document can contain it (field names of the form `__x__` are not writable), so
/// it is unambiguous; filters and ordering treat it as the map it is, which, like the SDKs'
/// own type order, puts it after every timestamp and never lets it match a timestamp filter.
public enum PendingServerTimestamp {
    static let typeKey = "__type__"
    static let localWriteTimeKey = "__local_write_time__"
    static let previousValueKey = "__previous_value__"
    static let sentinel = "server_timestamp"

    /// The pending value written at `localWriteTime` over `previous` (the field's value before
    /// the write). A previous value that is itself pending is replaced by what it replaced,
    /// so chains never form (the SDKs keep only the oldest real value).
    public static func value(localWriteTime: Timestamp, previous: Value?) -> Value {
        var entries: [MapValue.Entry] = [(typeKey, .string(sentinel)), (localWriteTimeKey, .timestamp(localWriteTime))]
        let previous = previous.flatMap { decode($0).map(\.previous) ?? $0 }
        if let previous { entries.append((previousValueKey, previous)) }
        return .map(MapValue(unsortedEntries: entries))
    }

    /// The local write time and previous value when `value` is a pending server timestamp.
    public static func decode(_ value: Value) -> (localWriteTime: Timestamp, previous: Value?)? {
        guard case .map(let m) = value, m.count == 2 || m.count == 3,
              case .string(sentinel)? = m[typeKey], case .timestamp(let time)? = m[localWriteTimeKey]
        else { return nil }
        return (time, m[previousValueKey])
    }
}

extension Write {
    /// This write applied to a client's local view of its document (`current`, nil when
    /// missing or unknown) before any commit, as the mobile SDKs apply a pending mutation:
    /// a write whose precondition does not hold leaves the document as it is (the commit will
    /// fail and report it); transforms take the values the document had before the write
    /// (`serverTimestamp()` becomes a `PendingServerTimestamp` over the old value, increments
    /// and array transforms apply to the old value), then land on the written fields. Limits
    /// are left to the commit. The result's update time (and a new document's create time)
    /// is `localWriteTime` with an odd nanosecond count, which no commit time has (commits
    /// are whole microseconds): a local document never equals a committed one, so views
    /// always report the step from one to the other (as a metadata change when the fields
    /// are the same).
    public func applyLocally(to current: Document?, localWriteTime: Timestamp) -> Document? {
        switch precondition {
        case .exists(true)?: if current == nil { return current }
        case .exists(false)?: if current != nil { return current }
        case .updateTime(let t)?: if current?.updateTime != t { return current }
        case nil: break
        }
        var fields: MapValue
        switch operation {
        case .delete: return nil
        case .verify: return current
        case .set(let newFields): fields = newFields
        case .update(let newFields, let mask):
            fields = current?.fields ?? MapValue()
            for path in mask {
                if let v = newFields.value(at: path) { fields.setValue(v, at: path) } else { fields.removeValue(at: path) }
            }
        case .transformOnly: fields = current?.fields ?? MapValue()
        }
        for t in transforms {
            let old = current?.fields.value(at: t.path)
            let new: Value
            if case .serverTimestamp = t.kind {
                new = PendingServerTimestamp.value(localWriteTime: localWriteTime, previous: old)
            } else {
                new = t.apply(to: old, commitTime: localWriteTime)
            }
            fields.setValue(new, at: t.path)
        }
        let version = Timestamp(seconds: localWriteTime.seconds, nanos: localWriteTime.nanos | 1)
        return Document(path: path, fields: fields, createTime: current?.createTime ?? version, updateTime: version)
    }
}
