import Foundation

// One libFuzzer binary for every target (docs/reliability.md#fuzzing): the modules are
// built once, and `HEARTH_FUZZ_TARGET` names the target a run fuzzes (Fuzz/run.sh sets it).
// libFuzzer provides `main`; these two functions are its callbacks.

/// A fuzz target: a name (the corpus and dictionary files share it) and what it runs on
/// one input. Every target file adds itself to `allTargets`.
struct FuzzTarget {
    let name: String
    let summary: String
    let run: ([UInt8]) -> Int
}

let allTargets: [FuzzTarget] = [
    http1Target, http2FramesTarget, http2ConnectionTarget, hpackTarget, webSocketTarget,
    grpcFramingTarget, gzipTarget, protobufTarget, restTarget, hearthJSONTarget, webChannelTarget,
    requestTextsTarget, resourceNameTarget, rulesSourceTarget, rulesEvalTarget,
    exportLogTarget, entityTarget, durableRecordTarget, durableStoreTarget, bundleTarget,
]

nonisolated(unsafe) var selected: FuzzTarget?
/// Keeps the targets' results alive, so the optimiser cannot drop the work.
nonisolated(unsafe) var sink = 0

@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>) -> Int32 {
    let name = ProcessInfo.processInfo.environment["HEARTH_FUZZ_TARGET"] ?? ""
    if name == "write-seeds", let corpus = ProcessInfo.processInfo.environment["HEARTH_FUZZ_SEEDS"] {
        do { try writeDurableSeeds(to: corpus) } catch { fatalError("writing seeds: \(error)") }
        exit(0)
    }
    guard let target = allTargets.first(where: { $0.name == name }) else {
        var text = "HEARTH_FUZZ_TARGET must name one of these targets:\n"
        for t in allTargets { text += "  \(t.name.padding(toLength: 18, withPad: " ", startingAt: 0)) \(t.summary)\n" }
        FileHandle.standardError.write(Data(text.utf8))
        exit(2)
    }
    selected = target
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    sink &+= selected!.run(bytes)
    return 0
}

/// Splits an input into parts at NUL bytes (at most `count` parts; the last takes the rest).
func splitParts(_ data: [UInt8], count: Int) -> [[UInt8]] {
    var parts: [[UInt8]] = []
    var rest = data[...]
    while parts.count < count - 1, let nul = rest.firstIndex(of: 0) {
        parts.append(Array(rest[..<nul]))
        rest = rest[(nul + 1)...]
    }
    parts.append(Array(rest))
    return parts
}
