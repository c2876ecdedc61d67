import Foundation
import Testing
@testable import Hearth
import HearthLock

// Codable models through a real database: `setData(from:)` / `addDocument(from:)` /
// batch and transaction writes, then `getDocument(as:)` / `data(as:)`, checking both the
// decoded model and the stored fields (docs/embedded-api.md#codable). Helpers carry a `codable` prefix so
// they cannot clash with other test files of this target.

// MARK: - Models

private struct Address: Codable, Equatable {
    var street: String
    var zip: Int
}

private enum Role: String, Codable {
    case admin, member
}

private enum Priority: Int, Codable {
    case low = 1, high = 3
}

private enum Shape: Codable, Equatable {
    case circle(radius: Double)
    case square(side: Int)
}

private struct User: Codable, Equatable {
    var name: String
    var age: Int
    var score: Double
    var active: Bool
    var big: Int64
    var nickname: String?
    var bio: String?
    var tags: [String]
    var address: Address
    var previous: [Address]
    var role: Role
    var priority: Priority
    var shape: Shape
    var counts: [String: Int]
    var sparse: [Int?]
}

private func codableSampleUser() -> User {
    User(name: "Ada", age: 36, score: 4.5, active: true, big: Int64.max, nickname: "ada", bio: nil,
         tags: ["math", "engines"], address: Address(street: "1 Main St", zip: 12345),
         previous: [Address(street: "Old Rd", zip: 1), Address(street: "Older Rd", zip: 2)],
         role: .admin, priority: .high, shape: .circle(radius: 2.5), counts: ["someKey": 1, "b": 2],
         sparse: [1, nil, 3])
}

private struct Note: Codable, Equatable {
    @DocumentID var id: String?
    var text: String
}

private struct Link: Codable, Equatable {
    @DocumentID var ref: DocumentReference?
    var title: String
}

private struct Post: Codable, Equatable {
    var text: String
    @ServerTimestamp var createdAt: Date?
    @ServerTimestamp var editedAt: Timestamp?
}

private struct Profile: Codable, Equatable {
    @ExplicitNull var bio: String?
    var plain: String?
}

private struct Place: Codable, Equatable {
    var location: GeoPoint
    var seenAt: Timestamp
    var owner: DocumentReference
    var embedding: VectorValue
}

private struct Event: Codable, Equatable {
    var at: Date
}

private struct Blob: Codable, Equatable {
    var bytes: Data
}

private struct Measurement: Codable, Equatable {
    var value: Double
}

private struct Camel: Codable, Equatable {
    var firstName: String
    var lastLoginCount: Int
    var extra: [String: Int]
}

private struct Wide: Codable, Equatable { var n: Double }
private struct Narrow: Codable, Equatable { var n: Int32 }
private struct Whole: Codable, Equatable { var n: Int }
private struct Flag: Codable, Equatable { var flag: Bool }
private struct Counter: Codable, Equatable { var n: Int }

private class Base: Codable {
    var baseName: String
    init(baseName: String) { self.baseName = baseName }
}

private final class Derived: Base {
    var level: Int

    init(baseName: String, level: Int) {
        self.level = level
        super.init(baseName: baseName)
    }

    private enum CodingKeys: String, CodingKey { case level }

    required init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        level = try c.decode(Int.self, forKey: .level)
        try super.init(from: c.superDecoder())
    }

    override func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(level, forKey: .level)
        try super.encode(to: c.superEncoder())
    }
}

// MARK: - Helpers

/// The stored fields of a document (nil when it does not exist).
private func codableFields(_ ref: DocumentReference) async throws -> [String: Any]? {
    try await ref.getDocument().data()
}

/// The error `body` throws, or nil.
private func codableError(_ body: () async throws -> Void) async -> (any Error)? {
    do {
        try await body()
        return nil
    } catch {
        return error
    }
}

/// A fresh database whose completion handlers run on a private queue.
private func codableQueuedDB() -> Firestore {
    let db = Firestore.inMemory()
    let settings = db.settings
    settings.dispatchQueue = DispatchQueue(label: "hearth.codable-tests.callbacks")
    db.settings = settings
    return db
}

/// Boxes a non-Sendable result to hand it across a continuation.
private struct CodableSent<T>: @unchecked Sendable {
    let value: T
}

/// Waits for a completion-handler API.
private func codableCallback<T>(_ start: (@escaping (T) -> Void) -> Void) async -> T {
    await withHandOffContinuation { (c: HandOffContinuation<CodableSent<T>, Never>) in
        start { c.resume(returning: CodableSent(value: $0)) }
    }.value
}

// MARK: - Tests

@Suite struct CodableTests {
    // MARK: Round trips

    @Test func nestedModelRoundTripsThroughTheDatabase() async throws {
        let db = Firestore.inMemory()
        let ref = db.document("users/ada")
        let user = codableSampleUser()
        try ref.setData(from: user)

        #expect(try await ref.getDocument(as: User.self) == user)

        let fields = try #require(try await codableFields(ref))
        #expect(fields["bio"] == nil)  // nil optionals are omitted
        #expect(fields["nickname"] as? String == "ada")
        #expect(fields["role"] as? String == "admin")
        #expect(fields["priority"] as? Int == 3)
        #expect(fields["big"] as? Int64 == Int64.max)
        #expect(fields["active"] as? Bool == true)
        let address = try #require(fields["address"] as? [String: Any])
        #expect(address["street"] as? String == "1 Main St")
        #expect(address["zip"] as? Int == 12345)
        #expect((fields["previous"] as? [[String: Any]])?.map { $0["zip"] as? Int } == [1, 2])
        let shape = try #require(fields["shape"] as? [String: Any])
        #expect((shape["circle"] as? [String: Any])?["radius"] as? Double == 2.5)
        let sparse = try #require(fields["sparse"] as? [Any])
        #expect(sparse.count == 3)
        #expect(sparse[1] is NSNull)
        #expect(fields.count == 14)
    }

    @Test func queryDocumentsDecodeWithDataAs() async throws {
        let db = Firestore.inMemory()
        try db.document("notes/a").setData(from: Note(text: "first"))
        try db.document("notes/b").setData(from: Note(text: "second"))
        let page = try await db.collection("notes").getDocuments()
        let notes = try page.documents.map { try $0.data(as: Note.self) }
        #expect(notes.sorted { $0.text < $1.text } == [Note(id: "a", text: "first"), Note(id: "b", text: "second")])
    }

    @Test func dateRoundTripsAtMicrosecondPrecision() async throws {
        let db = Firestore.inMemory()
        let exact = db.document("events/exact")
        let date = Date(timeIntervalSince1970: 1_700_000_000.125)  // exactly representable
        // The encoder itself turns the Date into a Timestamp.
        let encoded = try Firestore.Encoder().encode(Event(at: date))
        #expect(encoded["at"] as? Timestamp == Timestamp(seconds: 1_700_000_000, nanoseconds: 125_000_000))
        try exact.setData(from: Event(at: date))
        #expect(try await exact.getDocument(as: Event.self).at == date)
        let stored = try #require(try await codableFields(exact)?["at"] as? Timestamp)
        #expect(stored.seconds == 1_700_000_000)
        #expect(stored.nanoseconds == 125_000_000)

        // Sub-microsecond digits are dropped by the server; the rest survives.
        let fine = db.document("events/fine")
        let precise = Date(timeIntervalSince1970: 1_700_000_000.123456789)
        try fine.setData(from: Event(at: precise))
        let back = try await fine.getDocument(as: Event.self).at
        #expect(back != precise)
        #expect(abs(back.timeIntervalSince(precise)) < 1e-6)
        let fineStamp = try #require(try await codableFields(fine)?["at"] as? Timestamp)
        #expect(fineStamp.nanoseconds / 1000 == 123_456)
        #expect(fineStamp.nanoseconds % 1000 == 0)
    }

    @Test func dataIsStoredAsBytes() async throws {
        let db = Firestore.inMemory()
        let ref = db.document("blobs/b")
        let blob = Blob(bytes: Data([0, 1, 2, 255]))
        try ref.setData(from: blob)
        #expect(try await codableFields(ref)?["bytes"] as? Data == Data([0, 1, 2, 255]))
        #expect(try await ref.getDocument(as: Blob.self) == blob)
        // `.blob` also reads base64 strings (data written with the `.base64` strategy).
        let legacy = try Firestore.Decoder().decode(Blob.self, from: ["bytes": Data([9, 8]).base64EncodedString()])
        #expect(legacy.bytes == Data([9, 8]))
    }

    @Test func firestoreTypesPassThroughUntouched() async throws {
        let db = Firestore.inMemory()
        let owner = db.document("users/owner")
        let place = Place(location: GeoPoint(latitude: 48.85, longitude: 2.35),
                          seenAt: Timestamp(seconds: 1_600_000_000, nanoseconds: 5_000),
                          owner: owner, embedding: VectorValue([1, 2.5] as [Double]))

        let encoded = try Firestore.Encoder().encode(place)
        // The very same instances are inserted.
        let location = try #require(encoded["location"] as? GeoPoint)
        let seenAt = try #require(encoded["seenAt"] as? Timestamp)
        let encodedOwner = try #require(encoded["owner"] as? DocumentReference)
        let embedding = try #require(encoded["embedding"] as? VectorValue)
        #expect(ObjectIdentifier(location) == ObjectIdentifier(place.location))
        #expect(ObjectIdentifier(seenAt) == ObjectIdentifier(place.seenAt))
        #expect(ObjectIdentifier(encodedOwner) == ObjectIdentifier(owner))
        #expect(ObjectIdentifier(embedding) == ObjectIdentifier(place.embedding))

        let ref = db.document("places/p")
        try ref.setData(from: place)
        let fields = try #require(try await codableFields(ref))
        #expect(fields["location"] as? GeoPoint == place.location)
        #expect(fields["seenAt"] as? Timestamp == place.seenAt)
        #expect((fields["owner"] as? DocumentReference)?.path == "users/owner")
        #expect(fields["embedding"] as? VectorValue == place.embedding)
        #expect(try await ref.getDocument(as: Place.self) == place)
    }

    @Test func classHierarchyUsesSuperEncoder() throws {
        let encoded = try Firestore.Encoder().encode(Derived(baseName: "b", level: 2))
        #expect(encoded["level"] as? Int == 2)
        #expect((encoded["super"] as? [String: Any])?["baseName"] as? String == "b")
        let decoded = try Firestore.Decoder().decode(Derived.self, from: encoded)
        #expect(decoded.level == 2)
        #expect(decoded.baseName == "b")
    }

    // MARK: Property wrappers

    @Test func documentIDIsFilledFromTheReferenceAndNeverWritten() async throws {
        let db = Firestore.inMemory()
        let ref = db.document("notes/n1")
        try ref.setData(from: Note(id: "ignored", text: "hello"))
        let fields = try #require(try await codableFields(ref))
        #expect(fields.count == 1)
        #expect(fields["id"] == nil)
        #expect(try await ref.getDocument(as: Note.self) == Note(id: "n1", text: "hello"))

        // A stored field with the property's name is ignored.
        let clash = db.document("notes/n2")
        try await clash.setData(["id": "other", "text": "x"])
        #expect(try await clash.getDocument(as: Note.self).id == "n2")

        let linkRef = db.document("links/l1")
        try linkRef.setData(from: Link(ref: db.document("elsewhere/x"), title: "t"))
        #expect(try await codableFields(linkRef)?["ref"] == nil)
        let link = try await linkRef.getDocument(as: Link.self)
        #expect(link.ref == linkRef)
        #expect(link.title == "t")
    }

    @Test func documentIDAndReferencesRejectOtherCoders() throws {
        let db = Firestore.inMemory()
        #expect(throws: FirestoreEncodingError.self) { try JSONEncoder().encode(Note(id: "x", text: "t")) }
        #expect(throws: FirestoreEncodingError.self) { try JSONEncoder().encode(["r": db.document("a/b")]) }
        let json = Data(#"{"id":"x","text":"t"}"#.utf8)
        #expect(throws: FirestoreDecodingError.self) { try JSONDecoder().decode(Note.self, from: json) }
        // Firestore.Decoder without a reference has nothing to fill @DocumentID from (as in the SDK).
        #expect(throws: FirestoreDecodingError.self) { try Firestore.Decoder().decode(Note.self, from: ["text": "t"]) }
    }

    @Test func nilServerTimestampWritesTheCommitTime() async throws {
        let clock = ManualClock(now: Timestamp(seconds: 1_700_000_000, nanoseconds: 250_000))
        let db = Firestore.inMemory(clock: clock)
        let ref = db.document("posts/p")

        let encoded = try Firestore.Encoder().encode(Post(text: "hi"))
        #expect(encoded["createdAt"] as? FieldValue == FieldValue.serverTimestamp())

        try ref.setData(from: Post(text: "hi"))
        // A server read sees the commit (and acknowledges the write to this instance).
        let fields = try #require(try await codableFields(ref))
        let commit = Timestamp(seconds: 1_700_000_000, nanoseconds: 250_000)
        #expect(fields["createdAt"] as? Timestamp == commit)
        #expect(fields["editedAt"] as? Timestamp == commit)
        let post = try await ref.getDocument(as: Post.self)
        #expect(post.createdAt == commit.dateValue())
        #expect(post.editedAt == commit)

        // A set value is written as it is.
        let given = Timestamp(seconds: 1_500_000_000, nanoseconds: 0)
        try ref.setData(from: Post(text: "hi", createdAt: given.dateValue(), editedAt: given))
        #expect(try await codableFields(ref)?["createdAt"] as? Timestamp == given)
        #expect(try await ref.getDocument(as: Post.self).editedAt == given)

        // A null field reads back as nil.
        try await ref.setData(["text": "hi", "createdAt": NSNull(), "editedAt": NSNull()])
        #expect(try await ref.getDocument(as: Post.self) == Post(text: "hi", createdAt: nil, editedAt: nil))
    }

    @Test func explicitNullWritesNull() async throws {
        let db = Firestore.inMemory()
        let ref = db.document("profiles/p")
        try ref.setData(from: Profile(bio: nil, plain: nil))
        let fields = try #require(try await codableFields(ref))
        #expect(fields["bio"] is NSNull)
        #expect(fields["plain"] == nil)
        #expect(try await ref.getDocument(as: Profile.self) == Profile(bio: nil, plain: nil))

        try ref.setData(from: Profile(bio: "hello", plain: "p"))
        #expect(try await codableFields(ref)?["bio"] as? String == "hello")
        #expect(try await ref.getDocument(as: Profile.self) == Profile(bio: "hello", plain: "p"))
    }

    // MARK: Strategies

    @Test func snakeCaseStrategiesRenameFieldsButNotDictionaryKeys() async throws {
        let db = Firestore.inMemory()
        let ref = db.document("people/p")
        let encoder = Firestore.Encoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let model = Camel(firstName: "Ada", lastLoginCount: 3, extra: ["someKey": 1])
        try ref.setData(from: model, encoder: encoder)

        let fields = try #require(try await codableFields(ref))
        #expect(Set(fields.keys) == ["first_name", "last_login_count", "extra"])
        #expect((fields["extra"] as? [String: Any])?["someKey"] as? Int == 1)

        let decoder = Firestore.Decoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        #expect(try await ref.getDocument(as: Camel.self, decoder: decoder) == model)
        // Without the strategy the snake_case fields do not match.
        await #expect(throws: DecodingError.self) { try await ref.getDocument(as: Camel.self) }
    }

    @Test func snakeCaseConversionFollowsJSONEncoder() {
        #expect(snakeCased("myURLProperty") == "my_url_property")
        #expect(snakeCased("oneTwo3Four") == "one_two3_four")
        #expect(snakeCased("_leadingUnderscore_") == "_leading_underscore_")
        #expect(snakeCased("already_snake") == "already_snake")
        #expect(camelCased("one_two_three") == "oneTwoThree")
        #expect(camelCased("_private_value_") == "_privateValue_")
        #expect(camelCased("single") == "single")
    }

    @Test func nonConformingFloatsThrowByDefault() async throws {
        let db = Firestore.inMemory()
        let ref = db.document("m/nan")
        let error = await codableError { try ref.setData(from: Measurement(value: .nan)) }
        guard case .invalidValue(_, let context)? = error as? EncodingError else {
            Issue.record("expected EncodingError.invalidValue, got \(String(describing: error))")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["value"])
        #expect(try await ref.getDocument().exists == false)
        #expect(throws: EncodingError.self) { try Firestore.Encoder().encode(Measurement(value: -.infinity)) }

        // Dictionary writes with NaN are fine; strings stand in for NaN when asked to.
        try await ref.setData(["value": Double.nan])
        #expect(try await ref.getDocument(as: Measurement.self).value.isNaN)
        let encoder = Firestore.Encoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        let encoded = try encoder.encode(Measurement(value: .infinity))
        #expect(encoded["value"] as? String == "+inf")
        let decoder = Firestore.Decoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        #expect(try decoder.decode(Measurement.self, from: encoded).value == .infinity)
    }

    @Test func dateAndDataStrategies() throws {
        let date = Date(timeIntervalSince1970: 1_000)
        let encoder = Firestore.Encoder()
        let decoder = Firestore.Decoder()

        encoder.dateEncodingStrategy = .secondsSince1970
        decoder.dateDecodingStrategy = .secondsSince1970
        var encoded = try encoder.encode(Event(at: date))
        #expect(encoded["at"] as? Double == 1_000)
        #expect(try decoder.decode(Event.self, from: encoded).at == date)

        encoder.dateEncodingStrategy = .millisecondsSince1970
        decoder.dateDecodingStrategy = .millisecondsSince1970
        encoded = try encoder.encode(Event(at: date))
        #expect(encoded["at"] as? Double == 1_000_000)
        #expect(try decoder.decode(Event.self, from: encoded).at == date)

        encoder.dateEncodingStrategy = .iso8601
        decoder.dateDecodingStrategy = .iso8601
        encoded = try encoder.encode(Event(at: date))
        #expect(encoded["at"] as? String == "1970-01-01T00:16:40Z")
        #expect(try decoder.decode(Event.self, from: encoded).at == date)

        // The default `.timestamp` also accepts a Date in hand-built data.
        #expect(try Firestore.Decoder().decode(Event.self, from: ["at": date]).at == date)

        encoder.dataEncodingStrategy = .base64
        decoder.dataDecodingStrategy = .base64
        encoded = try encoder.encode(Blob(bytes: Data([1, 2, 3])))
        #expect(encoded["bytes"] as? String == "AQID")
        #expect(try decoder.decode(Blob.self, from: encoded).bytes == Data([1, 2, 3]))

        // Out-of-range dates throw instead of trapping in Timestamp(date:).
        #expect(throws: EncodingError.self) { try Firestore.Encoder().encode(Event(at: Date(timeIntervalSince1970: 1e12))) }
    }

    // MARK: Top level and missing documents

    @Test func topLevelMustBeKeyed() throws {
        let db = Firestore.inMemory()
        #expect(throws: EncodingError.self) { try Firestore.Encoder().encode([1, 2, 3]) }
        #expect(throws: EncodingError.self) { try Firestore.Encoder().encode("text") }
        #expect(throws: EncodingError.self) { try Firestore.Encoder().encode(Timestamp(seconds: 1, nanoseconds: 0)) }
        #expect(throws: EncodingError.self) { try Firestore.Encoder().encode(db.document("a/b")) }
        #expect(throws: EncodingError.self) { try Firestore.Encoder().encode(UInt64.max) }
        struct Empty: Codable {}
        #expect(try Firestore.Encoder().encode(Empty()).isEmpty)
        let dict = try Firestore.Encoder().encode(["a": 1])
        #expect(dict["a"] as? Int == 1)
        #expect(throws: EncodingError.self) { try Firestore.Encoder().encode(["n": UInt64.max]) }
    }

    @Test func missingDocumentDecodesAsValueNotFoundOrNil() async throws {
        let db = Firestore.inMemory()
        let ref = db.document("users/nobody")
        let error = await codableError { _ = try await ref.getDocument(as: User.self) }
        guard case .valueNotFound? = error as? DecodingError else {
            Issue.record("expected DecodingError.valueNotFound, got \(String(describing: error))")
            return
        }
        #expect(try await ref.getDocument(as: User?.self) == nil)
        #expect(try await ref.getDocument().data(as: Note?.self) == nil)
    }

    // MARK: Numbers

    @Test func integerFieldsDecodeIntoDoubleAndNarrowIntegers() async throws {
        let db = Firestore.inMemory()
        let ref = db.document("n/int")
        try await ref.setData(["n": 42])
        #expect(try await ref.getDocument(as: Wide.self).n == 42.0)
        #expect(try await ref.getDocument(as: Narrow.self).n == 42)

        try await ref.setData(["n": Int64(Int32.max) + 1])
        let overflow = await codableError { _ = try await ref.getDocument(as: Narrow.self) }
        guard case .dataCorrupted? = overflow as? DecodingError else {
            Issue.record("expected DecodingError.dataCorrupted, got \(String(describing: overflow))")
            return
        }

        // An integral double fits an Int; a fractional one does not.
        try await ref.setData(["n": 3.0])
        #expect(try await ref.getDocument(as: Whole.self).n == 3)
        try await ref.setData(["n": 2.5])
        await #expect(throws: DecodingError.self) { try await ref.getDocument(as: Whole.self) }
    }

    @Test func boolOnlyComesFromBooleans() async throws {
        let db = Firestore.inMemory()
        let ref = db.document("n/flag")
        try await ref.setData(["flag": 1])
        let error = await codableError { _ = try await ref.getDocument(as: Flag.self) }
        guard case .typeMismatch(let type, _)? = error as? DecodingError else {
            Issue.record("expected DecodingError.typeMismatch, got \(String(describing: error))")
            return
        }
        #expect(type is Bool.Type)

        try await ref.setData(["flag": true])
        #expect(try await ref.getDocument(as: Flag.self).flag == true)
        // …and a boolean is not a number.
        try await ref.setData(["n": true])
        await #expect(throws: DecodingError.self) { try await ref.getDocument(as: Counter.self) }
        // Swift natives in hand-built data follow the same rules.
        #expect(try Firestore.Decoder().decode(Counter.self, from: ["n": 7]).n == 7)
        #expect(throws: DecodingError.self) { try Firestore.Decoder().decode(Flag.self, from: ["flag": 1]) }
    }

    // MARK: Write forms

    @Test func addDocumentFromReturnsTheNewReference() async throws {
        let db = Firestore.inMemory()
        let ref = try db.collection("notes").addDocument(from: Note(text: "added"))
        #expect(ref.parent.path == "notes")
        #expect(ref.documentID.count == 20)
        #expect(try await ref.getDocument(as: Note.self) == Note(id: ref.documentID, text: "added"))
        #expect(throws: EncodingError.self) { try db.collection("m").addDocument(from: Measurement(value: .nan)) }
    }

    @Test func mergeFormsOfSetDataFrom() async throws {
        let db = Firestore.inMemory()
        let ref = db.document("people/p")
        try await ref.setData(["firstName": "Old", "lastLoginCount": 1, "extra": ["k": 1], "keep": true])

        try ref.setData(from: Counter(n: 5), merge: true)
        var fields = try #require(try await codableFields(ref))
        #expect(fields["n"] as? Int == 5)
        #expect(fields["keep"] as? Bool == true)

        try ref.setData(from: Camel(firstName: "New", lastLoginCount: 9, extra: [:]), mergeFields: ["firstName"])
        fields = try #require(try await codableFields(ref))
        #expect(fields["firstName"] as? String == "New")
        #expect(fields["lastLoginCount"] as? Int == 1)
        #expect((fields["extra"] as? [String: Any])?["k"] as? Int == 1)
    }

    @Test func batchSetDataFrom() async throws {
        let db = Firestore.inMemory()
        let a = db.document("notes/a")
        let b = db.document("notes/b")
        let c = db.document("notes/c")
        try await b.setData(["text": "old", "other": 1])
        try await c.setData(["text": "old", "other": 2])

        let batch = db.batch()
        try batch.setData(from: Note(text: "A"), forDocument: a)
        try batch.setData(from: Note(text: "B"), forDocument: b, merge: true)
        try batch.setData(from: Note(text: "C"), forDocument: c, mergeFields: ["text"])
        #expect(try await a.getDocument().exists == false)  // nothing before commit
        try await batch.commit()

        #expect(try await a.getDocument(as: Note.self) == Note(id: "a", text: "A"))
        #expect(try await codableFields(b)?["other"] as? Int == 1)
        #expect(try await b.getDocument(as: Note.self).text == "B")
        #expect(try await codableFields(c)?["other"] as? Int == 2)
        #expect(try await c.getDocument(as: Note.self).text == "C")
        #expect(throws: EncodingError.self) { try db.batch().setData(from: Measurement(value: .nan), forDocument: a) }
    }

    @Test func transactionSetDataFrom() async throws {
        let db = Firestore.inMemory()
        let ref = db.document("counters/c")
        try ref.setData(from: Counter(n: 1))
        let result = try await db.runTransaction { txn, errorPointer in
            do {
                let current = try txn.getDocument(ref).data(as: Counter.self)
                try txn.setData(from: Counter(n: current.n + 1), forDocument: ref)
                try txn.setData(from: Note(text: "merged"), forDocument: db.document("notes/t"), merge: true)
                try txn.setData(from: Camel(firstName: "F", lastLoginCount: 0, extra: [:]), forDocument: db.document("people/t"),
                                mergeFields: ["firstName"])
                return current.n + 1
            } catch {
                errorPointer?.pointee = error as NSError
                return nil
            }
        }
        #expect(result as? Int == 2)
        #expect(try await ref.getDocument(as: Counter.self).n == 2)
        #expect(try await db.document("notes/t").getDocument(as: Note.self).text == "merged")
        #expect(try await codableFields(db.document("people/t"))?.count == 1)
    }

    @Test func getDocumentAsCompletionDeliversAResult() async throws {
        let db = codableQueuedDB()
        let ref = db.document("notes/r")
        try ref.setData(from: Note(text: "result"))
        let ok = await codableCallback { done in ref.getDocument(as: Note.self) { done($0) } }
        #expect(try ok.get() == Note(id: "r", text: "result"))

        let missing = await codableCallback { done in db.document("notes/none").getDocument(as: Note.self) { done($0) } }
        guard case .failure(let error) = missing, case .valueNotFound? = error as? DecodingError else {
            Issue.record("expected a valueNotFound failure, got \(missing)")
            return
        }

        let written = await codableCallback { done in
            do { try db.document("notes/w").setData(from: Note(text: "w")) { done($0) } } catch { done(error) }
        }
        #expect(written == nil)
        #expect(try await db.document("notes/w").getDocument(as: Note.self).text == "w")
    }
}
