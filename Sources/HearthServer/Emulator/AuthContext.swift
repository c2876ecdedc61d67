import Foundation
import HearthCore

/// Who a request acts as, from its `Authorization` header, as the official emulator reads
/// it (wire-protocol §10, §14.5): `Bearer owner` is admin; any other bearer token is a JWT
/// whose claims become `request.auth` (signatures are never checked, `alg: none` welcome);
/// no header is a signed-out request.
public enum AuthContext: Sendable, Equatable {
    case admin
    case signedOut
    /// The token's claims (`sub` is the uid).
    case user(claims: JSON)

    public var isAdmin: Bool { self == .admin }

    /// The uid of a signed-in user (`sub`).
    public var uid: String? {
        if case .user(let claims) = self { return claims["sub"]?.stringValue }
        return nil
    }

    /// Parses an `Authorization` header value (nil: the header is absent).
    public static func parse(_ header: String?) throws(FirestoreError) -> AuthContext {
        guard let header else { return .signedOut }
        let parts = header.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            // The official emulator answers these with 500 UNKNOWN and no message.
            throw FirestoreError(.unknown, "")
        }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        if token == "owner" { return .admin }
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 2 || segments.count == 3,
              let headerData = ProtoJSON.decodeBase64(String(segments[0])),
              let payloadData = ProtoJSON.decodeBase64(String(segments[1])),
              case .object = try? JSON.parse(Array(headerData)),
              let claims = try? JSON.parse(Array(payloadData)), case .object = claims else {
            throw .invalidArgument("invalid jwt")
        }
        return .user(claims: claims)
    }
}
