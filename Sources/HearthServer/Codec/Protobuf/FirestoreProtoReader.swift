import HearthCore
import HearthProtobuf

/// The reader every Firestore message decoder uses: the one wire reader, reporting
/// malformed bytes as the engine's INVALID_ARGUMENT (HearthCore's conformance), so a
/// decoder throws one error type from the wire bytes up to the request's semantics.
typealias ProtoReader = ProtoWireReader<FirestoreError>
