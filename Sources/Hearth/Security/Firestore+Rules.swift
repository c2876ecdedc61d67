import Foundation
import HearthCore
import HearthRules

/// A rules file that does not compile: every diagnostic as `file:line:col: error: message`.
public typealias RulesCompileError = HearthRules.RulesCompileError

/// Security rules in the embedded API (docs/embedded-api.md#hearths-additions).
extension Firestore {
    /// Compiles `source` and makes it the rules of this database, for every view of it.
    /// The admin instance itself is never checked; `authenticated(uid:token:)` and
    /// `unauthenticated()` views are. Throws `RulesCompileError` (with line:column
    /// diagnostics) and keeps the previous rules when the source does not compile.
    public func setRules(_ source: String, file: String = "firestore.rules") throws {
        ensureActive()
        access.rules.set(try RulesProgram.compile(source: source, file: file))
    }

    /// The same database seen by a signed-in user: every read, query, listener, write,
    /// batch and transaction is checked against the rules with `request.auth.uid == uid`.
    /// `token` adds claims to `request.auth.token` (as an emulator mock-user token would).
    /// A denial fails with `FirestoreErrorCode.permissionDenied`, naming the request, the
    /// deciding `allow` statements with their lines and any `debug()` output.
    public func authenticated(uid: String, token: [String: Any] = [:]) -> Firestore {
        ensureActive()
        let reader = UserDataReader(firestore: self)
        var claims = MapValue()
        for (key, value) in token {
            let converted = requireValid { () throws(FirestoreError) in try reader.argumentValue(value) }
            claims.setValue(converted, at: HearthCore.FieldPath([key]))
        }
        let auth = RulesAuth.mockUser(uid: uid, projectID: projectID, claims: claims)
        return Firestore(database: database, access: access.viewing(as: .user(auth)))
    }

    /// The same database seen by a signed-out client (`request.auth == null`).
    public func unauthenticated() -> Firestore {
        ensureActive()
        return Firestore(database: database, access: access.viewing(as: .user(nil)))
    }
}
