import HearthProtobuf

/// The export format's records are protobuf (the Datastore entity and the metadata
/// messages), read and written with the one wire codec, `HearthProtobuf`. They use proto2
/// groups (an entity key's path elements, points, references), so their readers accept them.
typealias EntityReader = ProtoWireReader<FirestoreError>

/// Malformed protobuf in an export (or any record Hearth reads) is INVALID_ARGUMENT; the
/// reader's message names the field and byte offset, and the caller prefixes the file.
extension FirestoreError: ProtoDecodingFailure {
    public static func malformedProtobuf(_ description: String) -> FirestoreError { .invalidArgument(description) }
}
