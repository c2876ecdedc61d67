import Foundation
import HearthCore
import HearthGRPC
import HearthProtobuf

/// The ExecutePipeline RPC's messages.
///
/// ExecutePipelineRequest {database = 1, structured_pipeline = 2, transaction = 5,
/// new_transaction = 6, read_time = 7}; StructuredPipeline {pipeline = 1 {stages = 1},
/// options = 2 (map<string, Value>)}; Pipeline.Stage / Function {name = 1, args = 2,
/// options = 3}. A Value here may also be field_reference_value = 19, function_value = 20,
/// pipeline_value = 21 or variable_reference_value = 22. A `reference_value` that is not a
/// full document name (the clients send `/books` for the `collection` stage) stays a string.
/// ExecutePipelineResponse {transaction = 1, results = 2 (Document), execution_time = 3,
/// explain_stats = 4 {data = 1 (Any)}}.
enum PipelineMessages {
    struct Request {
        var database: DatabaseID
        var pipeline: StructuredPipeline
        var consistency: ReadConsistency
    }

    static func decodeRequest(_ bytes: [UInt8]) throws(FirestoreError) -> Request {
        var r = ProtoReader(bytes)
        var database = ""
        var pipeline: StructuredPipeline?
        var consistency: ReadConsistency = .current
        while let key = try r.next() {
            if try TransactionMessages.readConsistency(key, &r, into: &consistency, transaction: 5, newTransaction: 6, readTime: 7) { continue }
            switch key.number {
            case 1: database = try r.readString(key)
            case 2:
                var sub = try r.readMessage(key)
                pipeline = try decodeStructuredPipeline(&sub)
            default: try r.skip(key)
            }
        }
        let db = try ResourceNameFields.database(database)
        guard let pipeline else { throw .invalidArgument("executePipeline needs a structured_pipeline.") }
        return Request(database: db, pipeline: pipeline, consistency: consistency)
    }

    static func decodeStructuredPipeline(_ r: inout ProtoReader) throws(FirestoreError) -> StructuredPipeline {
        var stages: [PipelineStage] = []
        var options: [String: PipelineValue] = [:]
        while let key = try r.next() {
            switch key.number {
            case 1:
                var sub = try r.readMessage(key)
                stages = try decodePipeline(&sub)
            case 2:
                let (k, v) = try decodeEntry(&r, key)
                options[k] = v
            default: try r.skip(key)
            }
        }
        return StructuredPipeline(stages: stages, options: options)
    }

    /// `Pipeline` {stages = 1}.
    static func decodePipeline(_ r: inout ProtoReader) throws(FirestoreError) -> [PipelineStage] {
        var stages: [PipelineStage] = []
        while let key = try r.next() {
            if key.number == 1 {
                var sub = try r.readMessage(key)
                let (name, args, options) = try decodeCall(&sub)
                stages.append(PipelineStage(name, args, options: options))
            } else {
                try r.skip(key)
            }
        }
        return stages
    }

    /// A Stage or a Function: {name = 1, args = 2, options = 3}.
    private static func decodeCall(_ r: inout ProtoReader) throws(FirestoreError) -> (String, [PipelineValue], [String: PipelineValue]) {
        var name = ""
        var args: [PipelineValue] = []
        var options: [String: PipelineValue] = [:]
        while let key = try r.next() {
            switch key.number {
            case 1: name = try r.readString(key)
            case 2:
                var sub = try r.readMessage(key)
                args.append(try decodeValue(&sub))
            case 3:
                let (k, v) = try decodeEntry(&r, key)
                options[k] = v
            default: try r.skip(key)
            }
        }
        guard !name.isEmpty else { throw .invalidArgument("A pipeline stage or function has no name.") }
        return (name, args, options)
    }

    private static func decodeEntry(_ r: inout ProtoReader, _ key: ProtoFieldKey) throws(FirestoreError) -> (String, PipelineValue) {
        var entry = try r.readMessage(key)
        var name = ""
        var value: PipelineValue?
        while let k = try entry.next() {
            switch k.number {
            case 1: name = try entry.readString(k)
            case 2:
                var sub = try entry.readMessage(k)
                value = try decodeValue(&sub)
            default: try entry.skip(k)
            }
        }
        guard let value else { throw .invalidArgument("Map entry \"\(name)\" has no value (byte offset \(key.offset)).") }
        return (name, value)
    }

    /// A `Value`, expressions included.
    static func decodeValue(_ r: inout ProtoReader) throws(FirestoreError) -> PipelineValue {
        var value: PipelineValue?
        while let key = try r.next() {
            switch key.number {
            case 11:
                _ = try r.readInt32(key)
                value = .constant(.null)
            case 1: value = .constant(.boolean(try r.readBool(key)))
            case 2: value = .constant(.integer(try r.readInt64(key)))
            case 3: value = .constant(.double(try r.readDouble(key)))
            case 10:
                var sub = try r.readMessage(key)
                value = .constant(.timestamp(try WellKnownMessages.decodeTimestamp(&sub)))
            case 17: value = .constant(.string(try r.readString(key)))
            case 18: value = .constant(.bytes(Data(try r.readBytes(key))))
            case 5:
                let text = try r.readString(key)
                if let name = try? DocumentName.parse(text) { value = .constant(.reference(name)) }
                else { value = .constant(.string(text)) }
            case 8:
                var sub = try r.readMessage(key)
                value = .constant(.geoPoint(try WellKnownMessages.decodeLatLng(&sub)))
            case 9:
                var sub = try r.readMessage(key)
                var items: [PipelineValue] = []
                while let k = try sub.next() {
                    if k.number == 1 {
                        var item = try sub.readMessage(k)
                        items.append(try decodeValue(&item))
                    } else {
                        try sub.skip(k)
                    }
                }
                value = .makeArray(items)
            case 6:
                var sub = try r.readMessage(key)
                var entries: [(String, PipelineValue)] = []
                while let k = try sub.next() {
                    if k.number == 1 { entries.append(try decodeEntry(&sub, k)) } else { try sub.skip(k) }
                }
                value = vectorOrMap(.makeMap(entries))
            case 19: value = .field(try r.readString(key))
            case 22: value = .variable(try r.readString(key))
            case 20:
                var sub = try r.readMessage(key)
                let (name, args, options) = try decodeCall(&sub)
                value = .function(PipelineFunction(name, args, options: options))
            case 21:
                var sub = try r.readMessage(key)
                value = .pipeline(try decodePipeline(&sub))
            default:
                try r.skip(key)
            }
        }
        guard let value else { throw .invalidArgument("Cannot convert firestore.v1.Value with type unset.") }
        return value
    }

    /// A constant map shaped as production stores vectors becomes a vector.
    static func vectorOrMap(_ v: PipelineValue) -> PipelineValue {
        guard case .constant(.map(let fields)) = v, let components = Value.vectorComponents(of: fields) else { return v }
        return .constant(.vector(components))
    }

    // MARK: Response

    /// One ExecutePipelineResponse: a batch of results (a result without a document name
    /// carries fields only), the execution time, the transaction begun and explain stats.
    static func encodeResponse(_ rows: ArraySlice<PipelineRow>, executionTime: Timestamp, transaction: TransactionID?,
                               explain: String?, database: DatabaseID) -> [UInt8] {
        var w = ProtoWriter()
        if let transaction { w.writeBytes(1, Array(transaction.bytes)) }
        for row in rows {
            w.writeMessage(2) { d in
                if let name = row.name { d.writeString(1, database.resourceName(name)) }
                ValueMessage.encodeFields(row.fields, field: 2, into: &d)
                if let t = row.createTime { WellKnownMessages.writeTimestamp(3, t, into: &d) }
                if let t = row.updateTime { WellKnownMessages.writeTimestamp(4, t, into: &d) }
            }
        }
        WellKnownMessages.writeTimestamp(3, executionTime, into: &w)
        if let explain {
            // ExplainStats {data = 1: Any {type_url = 1, value = 2: StringValue {value = 1}}}.
            w.writeMessage(4) { stats in
                stats.writeMessage(1) { any in
                    any.writeString(1, "type.googleapis.com/google.protobuf.StringValue")
                    any.writeMessage(2) { $0.writeString(1, explain) }
                }
            }
        }
        return w.bytes
    }
}
