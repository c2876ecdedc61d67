import Foundation

/// A type `@DocumentID` can hold: it is made from the document's reference when read.
/// Hearth provides `String` (the document ID) and `DocumentReference`.
public protocol DocumentIDWrappable {
    static func wrap(_ documentReference: DocumentReference) throws -> Self
}

extension String: DocumentIDWrappable {
    public static func wrap(_ documentReference: DocumentReference) throws -> String {
        documentReference.documentID
    }
}

extension DocumentReference: DocumentIDWrappable {
    public static func wrap(_ documentReference: DocumentReference) throws -> DocumentReference {
        documentReference
    }
}

/// Marks a `String?` or `DocumentReference?` property of a `Codable` model to be filled with
/// the document's ID or reference when the model is read through `Firestore.Decoder` (a field
/// of the same name in the document is ignored). `Firestore.Encoder` never writes it, so a
/// model read from one path can be written to another unchanged. Any other encoder or
/// decoder throws `FirestoreEncodingError` / `FirestoreDecodingError`.
///
/// ```swift
/// struct Player: Codable {
///     @DocumentID var id: String?
///     var health: Int
/// }
/// let player = try await db.document("players/p1").getDocument(as: Player.self)  // id == "p1"
/// ```
@propertyWrapper
public struct DocumentID<Value: DocumentIDWrappable & Codable> {
    private var value: Value?

    /// A non-nil value is accepted but ignored when writing (the SDK logs a warning).
    public init(wrappedValue value: Value?) {
        self.value = value
    }

    public var wrappedValue: Value? {
        get { value }
        set { value = newValue }
    }
}

/// The Firestore coders skip `@DocumentID` when encoding and fill it from the reference
/// when decoding (see `FirestoreKeyedEncodingContainer` / `FirestoreKeyedDecodingContainer`).
extension DocumentID: FirestoreUncodedProperty {}

extension DocumentID: Codable {
    /// Reads the reference `Firestore.Decoder.decode(_:from:in:)` put in `userInfo`.
    public init(from decoder: any Decoder) throws {
        guard let reference = decoder.userInfo[.documentReference] as? DocumentReference else {
            throw FirestoreDecodingError.decodingIsNotSupported(
                "Could not find DocumentReference for user info key: \(CodingUserInfoKey.documentReference). DocumentID values can only be decoded with Firestore.Decoder")
        }
        value = try Value.wrap(reference)
    }

    /// Always throws: `Firestore.Encoder` skips `@DocumentID`, other encoders cannot write it.
    public func encode(to encoder: any Encoder) throws {
        throw FirestoreEncodingError.encodingIsNotSupported("DocumentID values can only be encoded with Firestore.Encoder")
    }
}

extension DocumentID: Equatable where Value: Equatable {}
extension DocumentID: Hashable where Value: Hashable {}
extension DocumentID: Sendable where Value: Sendable {}

/// `DocumentReference` sits inside Codable models (`let author: DocumentReference`,
/// `@DocumentID var ref: DocumentReference?`) only for Firestore's coders, which pass it
/// through; any other encoder or decoder throws.
extension DocumentReference: Codable {
    public convenience init(from decoder: any Decoder) throws {
        throw FirestoreDecodingError.decodingIsNotSupported("DocumentReference values can only be decoded with Firestore.Decoder")
    }

    public func encode(to encoder: any Encoder) throws {
        throw FirestoreEncodingError.encodingIsNotSupported("DocumentReference values can only be encoded with Firestore.Encoder")
    }
}
