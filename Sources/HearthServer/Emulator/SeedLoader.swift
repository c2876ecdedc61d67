import Foundation
import HearthCore

/// Loads a Hearth JSON documents file (HearthCore's `HearthJSON`) into a database.
public enum SeedLoader {
    /// Parses the file's documents.
    public static func documents(_ data: Data, database: DatabaseID) throws(FirestoreError) -> [(ResourcePath, MapValue)] {
        try HearthJSON.documents(data, database: database).map { ($0.path, $0.fields) }
    }

    /// Commits the documents (500 per commit); returns how many were written.
    @discardableResult
    public static func load(_ data: Data, into db: Database) throws(FirestoreError) -> Int {
        let docs = try HearthJSON.documents(data, database: db.id)
        var i = 0
        while i < docs.count {
            let chunk = docs[i..<min(i + 500, docs.count)]
            try db.commit(chunk.map { Write.set($0.path, $0.fields) })
            i += 500
        }
        return docs.count
    }
}
