import HearthCore
import HearthGRPC

/// The reader every Firestore message decoder uses: the generic wire reader, reporting
/// malformed bytes as the engine's INVALID_ARGUMENT, so a decoder throws one error type
/// from the wire bytes up to the request's semantics.
typealias ProtoReader = ProtoWireReader<FirestoreError>

extension FirestoreError: ProtoDecodingFailure {
    public static func malformedProtobuf(_ description: String) -> FirestoreError { .invalidArgument(description) }
}
