import Foundation
import HearthCore
import Testing
@testable import HearthServer

/// Rules are not filters for pipelines either: a pipeline is allowed only when its reads can
/// be proved from its source and leading filters (as a list query) or are gets.
@Suite struct PipelineRulesTests {
    static func body(_ stages: String) -> String { #"{"structuredPipeline": {"pipeline": {"stages": [\#(stages)]}}}"# }
    static let posts = #"{"name": "collection", "args": [{"referenceValue": "/posts"}]}"#
    static func ownerIs(_ uid: String) -> String {
        #"{"name": "where", "args": [{"functionValue": {"name": "equal", "args": [{"fieldReferenceValue": "owner"}, {"stringValue": "\#(uid)"}]}}]}"#
    }

    @Test func provedFiltersAllowOthersDeny() throws {
        try SecurityRulesTests().withRules { c in
            let url = "\(SecurityRulesTests.project):executePipeline"
            let mine = c.request("POST", url, body: Self.body(Self.posts + "," + Self.ownerIs("alice")), headers: SecurityRulesTests.alice)
            #expect(mine?.status == 200)
            #expect(mine?.json?.arrayValue?.first?["results"]?.arrayValue?.count == 1)
            // Without the owner filter the rule cannot hold for every post: denied, not filtered.
            let all = c.request("POST", url, body: Self.body(Self.posts), headers: SecurityRulesTests.alice)
            #expect(all?.status == 403)
            let others = c.request("POST", url, body: Self.body(Self.posts + "," + Self.ownerIs("bob")), headers: SecurityRulesTests.alice)
            #expect(others?.status == 403)
            // A get of a named document uses `allow get`; the whole database cannot be proved.
            let get = c.request("POST", url, body: Self.body(#"{"name": "documents", "args": [{"referenceValue": "/posts/b1"}]}"#),
                                headers: SecurityRulesTests.alice)
            #expect(get?.status == 200)
            let database = c.request("POST", url, body: Self.body(#"{"name": "database"}"#), headers: SecurityRulesTests.alice)
            #expect(database?.status == 403)
            #expect(database?.json?["error"]?["message"]?.stringValue?.contains("cannot be proved") == true)
            // The owner is not checked.
            #expect(c.request("POST", url, body: Self.body(#"{"name": "database"}"#), headers: SecurityRulesTests.owner)?.status == 200)
        }
    }
}
