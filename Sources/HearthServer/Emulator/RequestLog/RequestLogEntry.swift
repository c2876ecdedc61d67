import Foundation
import HearthCore
import HearthRules

/// One request as the request log records it: who asked what of which database over which
/// transport, how long it took, how it ended and — when security rules were checked — each
/// verdict with the `allow` statements evaluated and what `debug()` printed.
public struct RequestLogEntry: Sendable {
    /// The front end that carried the request.
    public enum Transport: String, Sendable, CaseIterable {
        case rest = "REST"
        case grpc = "gRPC"
        case webChannel = "WebChannel"
    }

    /// Who the request acted as, from its `Authorization` header or metadata.
    public enum Caller: Sendable, Equatable {
        /// `Bearer owner`: the rules are bypassed.
        case owner
        case unauthenticated
        /// A signed-in user (the token's `sub`).
        case user(uid: String)
        /// A header that is not a bearer token or not a readable JWT.
        case invalid

        init(authorization: String?) {
            guard let auth = try? AuthContext.parse(authorization) else { self = .invalid; return }
            switch auth {
            case .admin: self = .owner
            case .signedOut: self = .unauthenticated
            case .user(let claims): self = .user(uid: claims["sub"]?.stringValue ?? "")
            }
        }

        /// `owner`, `unauthenticated`, `invalid` or the uid.
        public var label: String {
            switch self {
            case .owner: "owner"
            case .unauthenticated: "unauthenticated"
            case .user(let uid): uid
            case .invalid: "invalid"
            }
        }
    }

    /// Increasing from 1 in the order requests finished.
    public var id: Int = 0
    /// When the request arrived (wall clock).
    public var time: Date
    public var transport: Transport
    /// The HTTP method and REST verb (`GET`, `POST :runQuery`), or the gRPC method (`Commit`).
    public var method: String
    /// The request path as sent (`/v1/projects/p/databases/(default)/documents/users/alice`),
    /// or the gRPC method path.
    public var path: String
    public var caller: Caller
    /// The database the request addressed, once the service knew it.
    public var database: DatabaseID?
    /// The documents or collections the request named, in order (at most `maxResources`).
    public var resources: [ResourcePath] = []
    public var duration: Duration = .zero
    /// How the request ended (`.ok` or the error's code).
    public var code: FirestoreError.Code = .ok
    /// The HTTP status sent, for HTTP transports.
    public var httpStatus: Int?
    /// The error's message, when it failed.
    public var message: String?
    /// Every security rules verdict reached while serving the request, in order.
    public var rules: [RulesDecision] = []

    /// More resources than this are counted, not kept.
    public static let maxResources = 20
    /// More verdicts than this (a large batch) are counted, not kept.
    public static let maxVerdicts = 50

    /// The verdict as a whole: nil when no rules were checked, false when any was a denial.
    public var allowed: Bool? { rules.isEmpty ? nil : rules.allSatisfy(\.allowed) }
}
