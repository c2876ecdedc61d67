import HearthCore

/// The caller's identity: `request.auth` is `{uid, token}`; signed-out requests pass nil.
public struct RulesAuth: Sendable {
    public var uid: String { didSet { value = Self.convert(uid, token) } }
    /// Every claim of the decoded ID token (`request.auth.token`).
    public var token: MapValue { didSet { value = Self.convert(uid, token) } }
    /// `request.auth` converted once, so evaluating a request does not rebuild it.
    private(set) var value: RulesValue

    public init(uid: String, token: MapValue) {
        self.uid = uid
        self.token = token
        self.value = Self.convert(uid, token)
    }

    private static func convert(_ uid: String, _ token: MapValue) -> RulesValue {
        .map(RulesMap(sortedEntries: [("token", RulesValue(token, database: "(default)")), ("uid", .string(uid))]))
    }

    /// The claims of an emulator mock-user token (docs/rules-language.md#request) with
    /// `claims` merged over the top-level keys.
    public static func mockUser(uid: String, projectID: String = "demo-hearth", claims: MapValue = MapValue(),
                                issuedAt: Int64 = 0) -> RulesAuth {
        var token = MapValue()
        token["iss"] = .string("https://securetoken.google.com/\(projectID)")
        token["aud"] = .string(projectID)
        token["iat"] = .integer(issuedAt)
        token["exp"] = .integer(issuedAt + 3600)
        token["auth_time"] = .integer(issuedAt)
        token["sub"] = .string(uid)
        token["user_id"] = .string(uid)
        token["firebase"] = .map(MapValue([("sign_in_provider", .string("custom")), ("identities", .map(MapValue()))]))
        for (k, v) in claims { token[k] = v }
        return RulesAuth(uid: uid, token: token)
    }
}
