import Foundation
import HearthCore
import HearthRules

/// Who a request acts as, from its `Authorization` header, as the official emulator reads
/// it (docs/protocol.md#emulator-endpoints, #auth): `Bearer owner` is admin; any other bearer token is a JWT
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
        var trimmed = Substring(parts[1])
        while let c = trimmed.first, c == " " || c == "\t" { trimmed.removeFirst() }
        while let c = trimmed.last, c == " " || c == "\t" { trimmed.removeLast() }
        let token = String(trimmed)
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

extension AuthContext {
    /// `request.auth` for the rules: `{uid: sub, token: every claim}` for a signed-in user,
    /// nil otherwise (the admin bypasses the rules instead). A token without `sub` is
    /// signed in with an empty uid — the official emulator reads the uid from `sub` only.
    var rulesAuth: RulesAuth? {
        guard case .user(let claims) = self, case .object(let pairs) = claims else { return nil }
        return RulesAuth(uid: claims["sub"]?.stringValue ?? "",
                         token: MapValue(pairs.map { ($0.0, Self.claimValue($0.1)) }))
    }

    /// A JSON claim as a rules value: numbers without a fraction or exponent are integers.
    static func claimValue(_ json: JSON) -> Value {
        switch json {
        case .null: return .null
        case .bool(let b): return .boolean(b)
        case .number(let n): return Int64(n).map(Value.integer) ?? .double(Double(n) ?? .nan)
        case .string(let s): return .string(s)
        case .array(let items): return .array(items.map(claimValue))
        case .object(let pairs): return .map(MapValue(pairs.map { ($0.0, claimValue($0.1)) }))
        }
    }
}
