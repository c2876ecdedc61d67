import Foundation
import Testing
@testable import HearthCore

/// One point of an enumeration: the fault, and the index of the call it hit.
struct FaultPoint: CustomStringConvertible {
    let fault: DiskFault
    let call: Int
    let operation: FileSystemFaults.Operation
    let path: String
    var description: String { "\(fault) at call \(call) (\(operation.rawValue) \((path as NSString).lastPathComponent))" }
}

/// What an enumeration tried and found, for the report (docs/reliability.md).
struct FaultTally {
    let operation: String
    var calls = 0
    var points: [DiskFault: Int] = [:]
    /// Outcome label → count, e.g. "recovered", "refused with a named file".
    var outcomes: [String: Int] = [:]
    var problems: [String] = []

    var totalPoints: Int { points.values.reduce(0, +) }

    var summary: String {
        let kinds = DiskFault.allCases.compactMap { k in points[k].map { "\(k.rawValue) \($0)" } }.joined(separator: ", ")
        let results = outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return "\(operation): \(calls) calls, \(totalPoints) points (\(kinds)); results: \(results); problems: \(problems.count)"
    }
}

/// Enumerates faults over an operation: runs it once on a copy of `template` to count its
/// file-system calls, then once per call index × fault kind that applies to that call, each
/// time on a fresh copy. `run` does the operation (arming the disk where the counted part
/// begins) and leaves its state for `settle` (the process dies or shuts down); `check` looks
/// at the directory afterwards — as the process left it, and after a power loss — and
/// returns an outcome label or throws a problem.
struct FaultEnumerator<Outcome> {
    let operation: String
    let template: String
    var kinds: [DiskFault] = DiskFault.allCases
    let run: (_ root: String, _ disk: RecordingDisk) -> Outcome
    /// After the operation, with the disk removed: `died` says the process is gone (abandon
    /// whatever is open) rather than shutting down.
    let settle: (_ outcome: Outcome, _ died: Bool) -> Void
    let check: (_ root: String, _ outcome: Outcome, _ point: FaultPoint?, _ powerLost: Bool) throws -> String

    struct Problem: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    func enumerate() -> FaultTally {
        var tally = FaultTally(operation: operation)
        // The count, and the operation without faults (which must pass the same checks).
        let counting = copy(0)
        let disk = RecordingDisk(root: counting)
        FileSystemFaults.install(disk)
        let clean = run(counting, disk)
        FileSystemFaults.remove(disk)
        let calls = disk.calls
        tally.calls = calls.count
        settle(clean, false)
        do { _ = try checking(counting) { try check(counting, clean, nil, false) } } catch { tally.problems.append("without faults: \(error)") }
        disk.losePower()
        do { _ = try checking(counting) { try check(counting, clean, nil, true) } } catch { tally.problems.append("without faults, then power loss: \(error)") }
        try? FileManager.default.removeItem(atPath: counting)

        for (index, call) in calls.enumerated() {
            for fault in kinds where fault.applies(to: call.0) {
                let point = FaultPoint(fault: fault, call: index, operation: call.0, path: call.1)
                tally.points[fault, default: 0] += 1
                let root = copy(index + 1)
                defer { try? FileManager.default.removeItem(atPath: root) }
                let disk = RecordingDisk(root: root, faultAt: index, fault: fault)
                FileSystemFaults.install(disk)
                let outcome = run(root, disk)
                FileSystemFaults.remove(disk)
                settle(outcome, fault.isDeath)
                if disk.injected == nil {
                    tally.problems.append("\(point): not injected (the operation made other calls this time)")
                    continue
                }
                if fault != .powerLoss {
                    do { tally.outcomes[try checking(root) { try check(root, outcome, point, false) }, default: 0] += 1 } catch {
                        tally.problems.append("\(point): \(error)")
                    }
                }
                // A power loss at the fault, or (for the others) once the operation is over.
                if fault != .crash {
                    disk.losePower()
                    do { tally.outcomes[try checking(root) { try check(root, outcome, point, true) } + " after power loss", default: 0] += 1 } catch {
                        tally.problems.append("\(point), then power loss: \(error)")
                    }
                }
            }
        }
        return tally
    }

    /// Runs a check with a fault-free disk installed: its syncs are skipped (what they would
    /// cover is not looked at any more), so hundreds of points take seconds, not minutes.
    private func checking(_ root: String, _ body: () throws -> String) throws -> String {
        let disk = RecordingDisk(root: root)
        FileSystemFaults.install(disk)
        defer { FileSystemFaults.remove(disk) }
        return try body()
    }

    private func copy(_ n: Int) -> String {
        let root = template + "-run\(n)"
        try? FileManager.default.removeItem(atPath: root)
        try! FileManager.default.copyItem(atPath: template, toPath: root)
        return root
    }
}

/// A scratch folder for one enumeration (its copies sit beside it).
struct FaultWorkspace {
    let template: String

    init(_ name: String) throws {
        template = (NSTemporaryDirectory() as NSString).appendingPathComponent("hearth-faults-\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(atPath: template, withIntermediateDirectories: true)
    }

    func remove() {
        let parent = (template as NSString).deletingLastPathComponent
        let base = (template as NSString).lastPathComponent
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? [] where name.hasPrefix(base) {
            try? FileManager.default.removeItem(atPath: (parent as NSString).appendingPathComponent(name))
        }
    }
}
