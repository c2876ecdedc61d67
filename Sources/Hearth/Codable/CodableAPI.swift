import Foundation

// The Codable forms of the write and read API (the SDK's Swift overlay). Writes encode with
// `Firestore.Encoder` and hand the dictionary to the matching `setData`; they throw only for
// encoding errors. Reads decode `data()` — or `NSNull` for a missing document, so `T?` gives
// nil and a non-optional `T` throws `DecodingError.valueNotFound` — passing the document's
// reference for `@DocumentID`.

extension DocumentReference {
    public func setData<T: Encodable>(from value: T,
                                      encoder: Firestore.Encoder = Firestore.Encoder(),
                                      completion: ((Error?) -> Void)? = nil) throws {
        setData(try encoder.encode(value), completion: completion)
    }

    public func setData<T: Encodable>(from value: T,
                                      merge: Bool,
                                      encoder: Firestore.Encoder = Firestore.Encoder(),
                                      completion: ((Error?) -> Void)? = nil) throws {
        setData(try encoder.encode(value), merge: merge, completion: completion)
    }

    public func setData<T: Encodable>(from value: T,
                                      mergeFields: [Any],
                                      encoder: Firestore.Encoder = Firestore.Encoder(),
                                      completion: ((Error?) -> Void)? = nil) throws {
        setData(try encoder.encode(value), mergeFields: mergeFields, completion: completion)
    }

    /// Reads the document and decodes it; the result is delivered like `getDocument`'s.
    public func getDocument<T: Decodable>(as type: T.Type,
                                          with serverTimestampBehavior: ServerTimestampBehavior = .none,
                                          decoder: Firestore.Decoder = .init(),
                                          source: FirestoreSource = .default,
                                          completion: @escaping (Result<T, Error>) -> Void) {
        getDocument(source: source) { snapshot, error in
            guard let snapshot else {
                completion(.failure(error!))
                return
            }
            completion(Result { try snapshot.data(as: type, with: serverTimestampBehavior, decoder: decoder) })
        }
    }

    public func getDocument<T: Decodable>(as type: T.Type,
                                          with serverTimestampBehavior: ServerTimestampBehavior = .none,
                                          decoder: Firestore.Decoder = .init(),
                                          source: FirestoreSource = .default) async throws -> T {
        let snapshot = try await getDocument(source: source)
        return try snapshot.data(as: type, with: serverTimestampBehavior, decoder: decoder)
    }
}

extension DocumentSnapshot {
    /// The document decoded as `T`; a missing document decodes from `NSNull`.
    public func data<T: Decodable>(as type: T.Type,
                                   with serverTimestampBehavior: ServerTimestampBehavior = .none,
                                   decoder: Firestore.Decoder = .init()) throws -> T {
        let fields: Any = data(with: serverTimestampBehavior) ?? NSNull()
        return try decoder.decode(type, from: fields, in: reference)
    }
}

extension CollectionReference {
    /// Adds a document with a random ID; the reference is returned at once.
    @discardableResult
    public func addDocument<T: Encodable>(from value: T,
                                          encoder: Firestore.Encoder = Firestore.Encoder(),
                                          completion: ((Error?) -> Void)? = nil) throws -> DocumentReference {
        addDocument(data: try encoder.encode(value), completion: completion)
    }
}

extension WriteBatch {
    @discardableResult
    public func setData<T: Encodable>(from value: T,
                                      forDocument doc: DocumentReference,
                                      encoder: Firestore.Encoder = Firestore.Encoder()) throws -> WriteBatch {
        setData(try encoder.encode(value), forDocument: doc)
    }

    @discardableResult
    public func setData<T: Encodable>(from value: T,
                                      forDocument doc: DocumentReference,
                                      merge: Bool,
                                      encoder: Firestore.Encoder = Firestore.Encoder()) throws -> WriteBatch {
        setData(try encoder.encode(value), forDocument: doc, merge: merge)
    }

    @discardableResult
    public func setData<T: Encodable>(from value: T,
                                      forDocument doc: DocumentReference,
                                      mergeFields: [Any],
                                      encoder: Firestore.Encoder = Firestore.Encoder()) throws -> WriteBatch {
        setData(try encoder.encode(value), forDocument: doc, mergeFields: mergeFields)
    }
}

extension Transaction {
    @discardableResult
    public func setData<T: Encodable>(from value: T,
                                      forDocument doc: DocumentReference,
                                      encoder: Firestore.Encoder = Firestore.Encoder()) throws -> Transaction {
        setData(try encoder.encode(value), forDocument: doc)
    }

    @discardableResult
    public func setData<T: Encodable>(from value: T,
                                      forDocument doc: DocumentReference,
                                      merge: Bool,
                                      encoder: Firestore.Encoder = Firestore.Encoder()) throws -> Transaction {
        setData(try encoder.encode(value), forDocument: doc, merge: merge)
    }

    @discardableResult
    public func setData<T: Encodable>(from value: T,
                                      forDocument doc: DocumentReference,
                                      mergeFields: [Any],
                                      encoder: Firestore.Encoder = Firestore.Encoder()) throws -> Transaction {
        setData(try encoder.encode(value), forDocument: doc, mergeFields: mergeFields)
    }
}
