import Foundation
import HearthTestSupport
import Testing
@_spi(Fuzzing) import HearthGRPC
@_spi(Fuzzing) import HearthServer

/// The server's and gRPC's fuzz targets (Fuzz/, docs/reliability.md#fuzzing) on their
/// committed inputs: the seeds and every finding kept as a regression vector
/// (`Fuzz/regressions/`). A decoder that traps fails the whole test run.
@Suite struct ServerFuzzCorpusTests {
    @Test(arguments: ["grpc-framing", "gzip", "protobuf", "webchannel", "request-texts", "rest"])
    func committedInputs(_ target: String) {
        let inputs = FuzzInputs.of(target)
        #expect(inputs.count >= 3, "the seeds of \(target) are missing")
        for input in inputs {
            switch target {
            case "grpc-framing": _ = GRPCFuzzing.messages(input)
            case "gzip": _ = GRPCFuzzing.gunzip(input)
            case "protobuf": _ = ServerFuzzing.protobufMessage(input.first ?? 0, Array(input.dropFirst()))
            case "webchannel": _ = ServerFuzzing.webChannelForward(input)
            case "rest": _ = ServerFuzzing.restSequence(input)
            default: _ = ServerFuzzing.requestTexts(String(decoding: input, as: UTF8.self))
            }
        }
    }

    /// Every protobuf seed decodes (they are the messages clients send), so the target
    /// starts from accepted messages, not only from errors.
    @Test func protobufSeedsDecode() {
        for input in FuzzInputs.of("protobuf") where !input.isEmpty {
            #expect(ServerFuzzing.protobufMessage(input[0], Array(input.dropFirst())) == 1, "selector \(input[0]) refused its seed")
        }
    }

    /// Reproduced through the `rest` fuzz target: `string_repeat` with a count near Int64.max trapped
    /// on an overflow (the process died), and with an empty string looped that many times.
    /// Now the first is production's 400 and the second an empty string, at once.
    @Test func stringRepeatRegressions() {
        let overflow = Self.regression("rest", "string-repeat-overflow")
        #expect(ServerFuzzing.restSequence(overflow) == [200, 400])
        let empty = Self.regression("rest", "string-repeat-empty-hang")
        let started = ContinuousClock.now
        #expect(ServerFuzzing.restSequence(empty) == [200, 200])
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    static func regression(_ target: String, _ name: String) -> [UInt8] {
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return Array(FileManager.default.contents(atPath: repo.appendingPathComponent("Fuzz/regressions/\(target)/\(name)").path) ?? Data())
    }
}
