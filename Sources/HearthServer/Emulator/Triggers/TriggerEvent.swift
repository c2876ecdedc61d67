import Foundation
import HearthCore
import HearthGRPC
import HearthLock
import HearthProtobuf

/// An event id (a lower-case UUID), made when first read — on a delivery thread, not under
/// the commit lock (a UUID reads the system's random source). One instance is shared by the
/// events that carry the same id.
final class EventID: Sendable {
    private let value: HearthMutex<String?>

    init(_ fixed: String? = nil) { value = HearthMutex(fixed) }

    var text: String {
        value.withLock { v in
            if let v { return v }
            let made = UUID().uuidString.lowercased()
            v = made
            return made
        }
    }
}

/// One event for one trigger: built under the commit lock from references (cheap), turned
/// into its HTTP request on a delivery thread (`request`), as the official emulator sends it
/// (recorded: Tests/Differential/recorded/triggers.json; replayed by Tests/Compat/triggers.sh).
struct TriggerEvent: Sendable {
    let trigger: Trigger
    let database: DatabaseID
    let entry: CommittedDocuments.Entry
    let commitTime: Timestamp
    /// 1st gen: one id per document of a commit, shared by every trigger it fires (as the
    /// official emulator does); 2nd gen: one per event.
    let eventID: EventID

    /// `/functions/projects/{p}/triggers/{key}` on the Functions emulator.
    var path: String { "/functions/projects/\(trigger.project)/triggers/\(trigger.key)" }

    /// The headers (after Host) and body to POST.
    func request(now: Date = Date()) -> (headers: [(String, String)], body: [UInt8]) {
        switch trigger.generation {
        case .v1: return ([("Content-Type", "application/json")], v1Body().bytes)
        case .v2(let authContext): return v2Request(authContext: authContext, now: now)
        }
    }

    /// `{"data": {"value"?, "oldValue"?, "updateMask": {}}, "context": {"eventId", "timestamp",
    /// "eventType", "resource": {"name", "service"}}}`: documents as in REST, the commit time
    /// as `timestamp`, and — as the official emulator sends it — an empty update mask.
    /// firebase-functions (src/v1/providers/firestore.ts) builds its snapshots from
    /// data.value / data.oldValue and reads nothing else of data.
    func v1Body() -> JSON {
        var data: [(String, JSON)] = []
        if let after = entry.after { data.append(("value", ProtoWrite.encode(after, database: database))) }
        if let before = entry.before { data.append(("oldValue", ProtoWrite.encode(before, database: database))) }
        data.append(("updateMask", .object([])))
        let context: [(String, JSON)] = [
            ("eventId", .string(eventID.text)),
            ("timestamp", .string(commitTime.rfc3339)),
            ("eventType", .string(trigger.eventType)),
            ("resource", .object([("name", .string(database.resourceName(entry.key.path))),
                                  ("service", .string(TriggerRegistration.firestoreService))])),
        ]
        return .object([("data", .object(data)), ("context", .object(context))])
    }

    /// A binary-mode CloudEvent: `ce-*` headers in the official emulator's order — its
    /// `ce-source` with the doubled `projects/` and `ce-authtype: unknown`,
    /// `ce-authid: fake-auth-id@gmail.com` for every `withAuthContext` event, whoever wrote
    /// — and, as the body, the base64 text of a `google.events.cloud.firestore.v1.DocumentEventData`
    /// (Content-Type application/protobuf: the Functions emulator base64-decodes such bodies).
    func v2Request(authContext: Bool, now: Date) -> (headers: [(String, String)], body: [UInt8]) {
        let path = entry.key.path.segments.joined(separator: "/")
        var headers: [(String, String)] = [
            ("ce-specversion", "1.0"),
            ("ce-type", trigger.eventType),
            ("ce-source", "//firestore.googleapis.com/projects/projects/\(database.project)/databases/\(database.database)"),
            ("ce-id", eventID.text),
            ("ce-subject", "documents/\(path)"),
            ("ce-time", Self.seconds(now)),
            ("ce-datacontenttype", "application/protobuf"),
            ("ce-dataschema", "https://github.com/googleapis/google-cloudevents/blob/main/proto/google/events/cloud/firestore/v1/data.proto"),
            ("ce-location", "us-central1"),
            ("ce-project", database.project),
            ("ce-database", database.database),
            ("ce-namespace", "(default)"),
            ("ce-document", path),
        ]
        if authContext {
            headers.append(("ce-authtype", "unknown"))
            headers.append(("ce-authid", "fake-auth-id@gmail.com"))
        }
        headers.append(("Content-Type", "application/protobuf"))
        return (headers, Array(Data(documentEventData()).base64EncodedString().utf8))
    }

    /// DocumentEventData {value = 1, old_value = 2, update_mask = 3}: the update mask always
    /// present and empty, as the official emulator sends it.
    func documentEventData() -> [UInt8] {
        var w = ProtoWriter()
        if let after = entry.after { w.writeMessage(1) { DocumentMessage.encode(after, database: database, into: &$0) } }
        if let before = entry.before { w.writeMessage(2) { DocumentMessage.encode(before, database: database, into: &$0) } }
        w.writeMessage(3) { _ in }
        return w.bytes
    }

    /// `2026-01-02T03:04:05Z`: ce-time has whole seconds.
    static func seconds(_ date: Date) -> String {
        var t = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&t, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }
}
