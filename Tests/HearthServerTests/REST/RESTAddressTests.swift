import HearthCore
import Testing
@testable import HearthServer
import HearthTransport

/// `RESTRouter.address(of:)` reads an ASCII path on its bytes and any other on Characters;
/// the two readings must agree on every ASCII path — the same address, the same 404 (nil),
/// the same error.
@Suite struct RESTAddressTests {
    static let paths = [
        "/v1/projects/p/databases/(default)/documents/c/d",
        "/v1/projects/p/databases/(default)/documents",
        "/v1/projects/p/databases/(default)/documents/",
        "/v1/projects/p/databases/(default)/documents/c",
        "/v1/projects/p/databases/(default)/documents/c/d/sub/e",
        "/v1/projects/p/databases/(default)/documents//d",
        "/v1/projects/p/databases/(default)/documents/c/d/",
        "/v1/projects/p/databases/(default)/documents:runQuery",
        "/v1/projects/p/databases/(default)/documents/c/d:runQuery",
        "/v1/projects/p/databases/(default)/documents/c/d:listen",
        "/v1/projects/p/databases/(default)/documents/c/d:nope",
        "/v1/projects/p/databases/(default)/documents/c:d/e",
        "/v1/projects/p/databases/(default)/documents:batchGet",
        "/v1/projects/p/databases/(default)/documentsx",
        "/v1/projects/p/databases/(default)/docs/c/d",
        "/v1/projects/p/databases/(default)",
        "/v1/projects/p/databases/(default)/",
        "/v1/projects/p/databases//documents/c/d",
        "/v1/projects//databases/(default)/documents/c/d",
        "/v1/projects/P_bad/databases/(default)/documents/c/d",
        "/v1/projects/-p/databases/(default)/documents/c/d",
        "/v1/projects/example.com:p/databases/(default)/documents/c/d",
        "/v1/projects/p/databases/(default)/documents/%2F/d",
        "/v2/projects/p/databases/(default)/documents/c/d",
        "/v1/project/p/databases/(default)/documents/c/d",
        "/v1/projects/p/database/(default)/documents/c/d",
        "v1/projects/p/databases/(default)/documents/c/d",
        "/v1/projects/p/databases/(default)/documents/c/./d",
        "/", "", "/v1", "/v1/projects/p/databases",
    ]

    @Test(arguments: ["GET", "POST", "PATCH", "DELETE"])
    func theASCIIReadingAgreesWithTheGeneralOne(method: String) throws {
        for path in Self.paths {
            for contentType in [nil, "application/json", "application/x-www-form-urlencoded"] {
                let request = HTTPRequest(method: method, target: path + "?x=1", headers: contentType.map { [("content-type", $0)] } ?? [])
                let decoded = try #require(PercentDecoding.decode(request.path))
                let fast = Result { () throws(FirestoreError) in try RESTRouter.address(of: request) }
                let general = Result { () throws(FirestoreError) in try RESTRouter.addressByCharacters(of: request, decoded) }
                switch (fast, general) {
                case (.success(let a), .success(let b)):
                    #expect(a?.database == b?.database && a?.path == b?.path && a?.verb == b?.verb, "\(method) \(path)")
                    #expect((a == nil) == (b == nil), "\(method) \(path)")
                case (.failure(let a), .failure(let b)):
                    #expect(a == b, "\(method) \(path)")
                default:
                    Issue.record("\(method) \(path): \(fast) against \(general)")
                }
            }
        }
    }
}
