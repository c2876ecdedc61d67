import Foundation
import Testing
@testable import HearthCore

/// Every file-system call of a commit, a compaction, a start-up, an export and an import,
/// failed in every way a disk fails (ENOSPC and EIO on write and on fsync, a short write,
/// EIO on read, a crash, a power loss that keeps only what an fsync covered), one point at a
/// time (`FaultEnumerator`). After each: no acknowledged commit is lost, nothing is half
/// applied, the caller got an error naming the file and the reason, and the directory
/// either opens with what was acknowledged or refuses with the file and what to do.
/// The tests run in parallel: each recording disk acts only under its own scratch folder.
@Suite("Storage faults: every file-system call of each operation, failed every way")
struct StorageFaultTests {
    static let id = DatabaseID(project: "p")

    static func contents(_ db: Database) -> [String: String] {
        var out: [String: String] = [:]
        for d in db.state().allDocuments() { out[d.path.description] = "\(d.fields)" }
        return out
    }

    /// Notices of the checks' own start-ups are not looked at.
    static let quiet = DurableStore.Options(notice: { _ in })

    static func message(_ error: any Error) -> String { (error as? FirestoreError)?.message ?? "\(error)" }

    static func fields(_ n: Int) -> MapValue { testFields(["n": .integer(Int64(n)), "s": .string("v\(n)")]) }

    static func reasonNamed(_ message: String, _ fault: DiskFault) -> Bool {
        switch fault {
        case .enospcOnWrite, .enospcOnSync, .shortWrite: message.contains(String(cString: strerror(ENOSPC)))
        case .eioOnWrite, .eioOnSync, .eioOnRead: message.contains(String(cString: strerror(EIO)))
        case .crash, .powerLoss: true
        }
    }

    static func report(_ tally: FaultTally) {
        print("storage faults — \(tally.summary)")
        for p in tally.problems.prefix(20) { print("  problem: \(p)") }
        if let out = ProcessInfo.processInfo.environment["HEARTH_FAULT_REPORT"] {
            let line = Data((tally.summary + "\n").utf8)
            if let h = FileHandle(forWritingAtPath: out) { h.seekToEndOfFile(); h.write(line); h.closeFile() } else {
                _ = FileManager.default.createFile(atPath: out, contents: line)
            }
        }
    }

    // MARK: Commits

    final class CommitRun {
        var store: DurableStore?
        var acknowledged: [Int] = []
        var errors: [String] = []
        let notices = NoticeLog()
    }

    /// Commit i sets two documents and the counter.
    static func commitWrites(_ i: Int) -> [Write] {
        [.set(testPath("c/\(i)-x"), fields(i)), .set(testPath("c/\(i)-y"), fields(i + 100)), .set(testPath("c/counter"), fields(i))]
    }

    static func afterCommits(_ n: Int) -> [String: String] {
        var out: [String: String] = [:]
        for i in 0...n {
            out["c/\(i)-x"] = "\(fields(i))"
            out["c/\(i)-y"] = "\(fields(i + 100))"
        }
        out["c/counter"] = "\(fields(n))"
        return out
    }

    @Test("three commits: every call × write/sync errors, short writes, crash, power loss")
    func commits() throws {
        let workspace = try FaultWorkspace("commit")
        defer { workspace.remove() }
        let clock = ManualClock(now: testEpoch)
        do {
            let store = try DurableStore.open(directory: workspace.template + "/data")
            try store.database(Self.id, clock: clock).commit(Self.commitWrites(0))
            store.close()
        }
        let enumerator = FaultEnumerator<CommitRun>(operation: "commit", template: workspace.template, run: { root, disk in
            let run = CommitRun()
            let notices = run.notices
            guard let store = try? DurableStore.open(directory: root + "/data", options: .init(notice: { notices.add($0) })) else { return run }
            run.store = store
            let db = store.database(Self.id, clock: clock)
            disk.arm()
            for i in 1...3 {
                clock.advance(by: 1)
                do { try db.commit(Self.commitWrites(i)); run.acknowledged.append(i) } catch { run.errors.append(Self.message(error)) }
            }
            return run
        }, settle: { run, died in
            if died { run.store?.abandon() } else { run.store?.close() }
        }, check: { root, run, point, powerLost in
            guard run.store != nil else { throw FaultEnumerator<CommitRun>.Problem("the store did not open before the fault") }
            let acked = run.acknowledged
            guard acked == Array(1..<(acked.count + 1)) else { throw FaultEnumerator<CommitRun>.Problem("acknowledged \(acked) out of order") }
            if let point, !point.fault.isDeath {
                guard let first = run.errors.first, first.contains("could not be made durable"), Self.reasonNamed(first, point.fault),
                      first.contains(root + "/data/wal-") else {
                    throw FaultEnumerator<CommitRun>.Problem("the client's error does not name the file and the reason: \(run.errors)")
                }
                guard run.notices.all.contains(where: { $0.contains("refuses commits") && Self.reasonNamed($0, point.fault) }) else {
                    throw FaultEnumerator<CommitRun>.Problem("nothing in the log: \(run.notices.all)")
                }
            }
            let store: DurableStore
            do { store = try DurableStore.open(directory: root + "/data", options: Self.quiet) } catch {
                throw FaultEnumerator<CommitRun>.Problem("start-up refused: \(error)")
            }
            defer { store.close() }
            let db = store.database(Self.id, clock: ManualClock(now: testTime(1000)))
            let got = Self.contents(db)
            let exact = got == Self.afterCommits(acked.count)
            let inFlight = !run.errors.isEmpty && acked.count < 3 && got == Self.afterCommits(acked.count + 1)
            guard exact || inFlight else {
                throw FaultEnumerator<CommitRun>.Problem("recovered counter \(got["c/counter"] ?? "none") and \(got.count) documents after acknowledging \(acked)")
            }
            // Writable again, and what it writes survives.
            try db.commit([.set(testPath("c/after"), Self.fields(7))])
            return exact ? "recovered exactly the acknowledged commits" : "recovered the acknowledged commits and the failed one, whole"
        })
        let tally = enumerator.enumerate()
        Self.report(tally)
        #expect(tally.problems.isEmpty, "\(tally.problems.prefix(10))")
        #expect(tally.totalPoints > 20)
    }

    // MARK: Compaction

    final class CompactionRun {
        var store: DurableStore?
        var compactionError: String?
        var callsBeforeCommit = 0
        var committed = false
        var commitError: String?
    }

    @Test("a compaction (log rotation, snapshot write, rename, clean-up), then a commit: every call × every fault")
    func compaction() throws {
        let workspace = try FaultWorkspace("compact")
        defer { workspace.remove() }
        let clock = ManualClock(now: testEpoch)
        let base: [String: String]
        do {
            let store = try DurableStore.open(directory: workspace.template + "/data")
            let db = store.database(Self.id, clock: clock)
            for i in 0..<12 {
                clock.advance(by: 1)
                var writes: [Write] = [.set(testPath("c/d\(i % 10)"), Self.fields(i))]
                if i % 4 == 3 { writes.append(.delete(testPath("c/d\(i % 7)"))) }
                try db.commit(writes)
            }
            base = Self.contents(db)
            store.close()
        }
        var withPost = base
        withPost["c/post"] = "\(Self.fields(99))"
        let enumerator = FaultEnumerator<CompactionRun>(operation: "compaction", template: workspace.template, run: { root, disk in
            let run = CompactionRun()
            guard let store = try? DurableStore.open(directory: root + "/data", options: Self.quiet) else { return run }
            run.store = store
            let db = store.database(Self.id, clock: clock)
            disk.arm()
            do { try store.compact() } catch { run.compactionError = Self.message(error) }
            run.callsBeforeCommit = disk.calls.count
            clock.advance(by: 1)
            do { try db.commit([.set(testPath("c/post"), Self.fields(99))]); run.committed = true } catch { run.commitError = Self.message(error) }
            return run
        }, settle: { run, died in
            if died { run.store?.abandon() } else { run.store?.close() }
        }, check: { root, run, point, powerLost in
            guard run.store != nil else { throw FaultEnumerator<CompactionRun>.Problem("the store did not open before the fault") }
            if let point, !point.fault.isDeath, point.call < run.callsBeforeCommit {
                guard let message = run.compactionError, Self.reasonNamed(message, point.fault), message.contains(root + "/data") else {
                    throw FaultEnumerator<CompactionRun>.Problem("compaction's error does not name the file and the reason: \(run.compactionError ?? "none")")
                }
                guard run.committed else {
                    throw FaultEnumerator<CompactionRun>.Problem("a failed compaction stopped commits: \(run.commitError ?? "")")
                }
            }
            let store: DurableStore
            do { store = try DurableStore.open(directory: root + "/data", options: Self.quiet) } catch {
                throw FaultEnumerator<CompactionRun>.Problem("start-up refused: \(error)")
            }
            defer { store.close() }
            let got = Self.contents(store.database(Self.id, clock: ManualClock(now: testTime(1000))))
            if run.committed {
                guard got == withPost else { throw FaultEnumerator<CompactionRun>.Problem("lost data: recovered \(got.count) documents, expected \(withPost.count)") }
            } else {
                guard got == base || got == withPost else { throw FaultEnumerator<CompactionRun>.Problem("recovered \(got.count) documents, expected \(base.count)") }
            }
            let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: root + "/data").filter { $0.hasSuffix(".tmp") }) ?? []
            guard leftovers.isEmpty else { throw FaultEnumerator<CompactionRun>.Problem("start-up left \(leftovers)") }
            return run.compactionError == nil ? "compacted, recovered everything" : "compaction failed, recovered everything"
        })
        let tally = enumerator.enumerate()
        Self.report(tally)
        #expect(tally.problems.isEmpty, "\(tally.problems.prefix(10))")
        #expect(tally.totalPoints > 30)
    }

    // MARK: Start-up

    final class StartRun {
        var store: DurableStore?
        var openError: String?
        var committed = false
    }

    @Test("start-up (snapshot, log replay, torn tail cut, stale files removed, new segment): every call × every fault")
    func startUp() throws {
        let workspace = try FaultWorkspace("start")
        defer { workspace.remove() }
        let clock = ManualClock(now: testEpoch)
        let data = workspace.template + "/data"
        let base: [String: String]
        do {
            let store = try DurableStore.open(directory: data)
            let db = store.database(Self.id, clock: clock)
            for i in 0..<5 { clock.advance(by: 1); try db.commit([.set(testPath("c/d\(i)"), Self.fields(i))]) }
            try store.compact()
            for i in 5..<8 { clock.advance(by: 1); try db.commit([.set(testPath("c/d\(i % 6)"), Self.fields(i))]) }
            base = Self.contents(db)
            store.abandon()
        }
        // A torn append at the end of the newest segment, and a compaction's leftover.
        let segments = try FileManager.default.contentsOfDirectory(atPath: data).filter { $0.hasPrefix("wal-") }.sorted()
        let last = try FileHandle(forWritingTo: URL(fileURLWithPath: data + "/" + segments.last!))
        last.seekToEndOfFile()
        last.write(Data([0x12, 0x34, 0x56, 0x78, 0x40, 0x00, 0x01, 0xAA, 0xBB]))
        try last.close()
        _ = FileManager.default.createFile(atPath: data + "/" + DurableRecord.snapshotName(9) + ".tmp", contents: Data([1, 2, 3]))
        var withPost = base
        withPost["c/post"] = "\(Self.fields(99))"

        let enumerator = FaultEnumerator<StartRun>(operation: "start-up", template: workspace.template, run: { root, disk in
            let run = StartRun()
            disk.arm()
            do { run.store = try DurableStore.open(directory: root + "/data", options: .init(notice: { _ in })) } catch { run.openError = "\(error)" }
            if let store = run.store {
                clock.advance(by: 1)
                run.committed = (try? store.database(Self.id, clock: clock).commit([.set(testPath("c/post"), Self.fields(99))])) != nil
            }
            return run
        }, settle: { run, died in
            if died { run.store?.abandon() } else { run.store?.close() }
        }, check: { root, run, point, powerLost in
            if let message = run.openError, !message.contains(root + "/data") || !message.contains("start Hearth again") {
                throw FaultEnumerator<StartRun>.Problem("start-up's refusal names no file or nothing to do: \(message)")
            }
            let store: DurableStore
            do { store = try DurableStore.open(directory: root + "/data", options: Self.quiet) } catch {
                throw FaultEnumerator<StartRun>.Problem("the next start-up refused: \(error)")
            }
            defer { store.close() }
            let got = Self.contents(store.database(Self.id, clock: ManualClock(now: testTime(1000))))
            guard got == withPost || (!run.committed && got == base) else {
                throw FaultEnumerator<StartRun>.Problem("recovered \(got.count) documents (committed after start-up: \(run.committed))")
            }
            return run.openError == nil ? "started" : "refused to start, naming the file; the next start recovered"
        })
        let tally = enumerator.enumerate()
        Self.report(tally)
        #expect(tally.problems.isEmpty, "\(tally.problems.prefix(10))")
        #expect(tally.totalPoints > 30)
    }

    // MARK: Export

    final class ExportRun {
        var succeeded = false
        var error: String?
    }

    static func state(_ documents: Int, version: Int) throws -> DatabaseState {
        let db = Database(id: id, clock: ManualClock(now: testEpoch))
        try db.commit((0..<documents).map { .set(testPath("e/d\($0)"), fields($0 * 10 + version)) })
        return db.state()
    }

    /// What importing `path` into an empty database gives, or the error.
    static func imported(_ path: String) -> Result<[String: String], FirestoreError> {
        let registry = DatabaseRegistry(clock: ManualClock(now: testEpoch))
        do throws(FirestoreError) {
            _ = try DataImport.run(path, project: nil, databases: registry.database)
            return .success(contents(registry.database(id)))
        } catch { return .failure(error) }
    }

    @Test("an export over a previous one (--export-on-exit, hearth export): every call × every fault")
    func export() throws {
        let workspace = try FaultWorkspace("export")
        defer { workspace.remove() }
        let old = try Self.state(30, version: 1), new = try Self.state(45, version: 2)
        try ExportFolder.replace(workspace.template + "/export", with: [old])
        guard case .success(let oldContents) = Self.imported(workspace.template + "/export") else { Issue.record("the old export does not import"); return }
        let newContents = Self.contents({ let db = Database(id: Self.id); _ = try? db.commit((0..<45).map { .set(testPath("e/d\($0)"), Self.fields($0 * 10 + 2)) }); return db }())
        let enumerator = FaultEnumerator<ExportRun>(operation: "export", template: workspace.template, run: { root, disk in
            let run = ExportRun()
            disk.arm()
            do { try ExportFolder.replace(root + "/export", with: [new]); run.succeeded = true } catch { run.error = Self.message(error) }
            return run
        }, settle: { _, _ in }, check: { root, run, point, powerLost in
            if let point, !point.fault.isDeath {
                guard let message = run.error, Self.reasonNamed(message, point.fault), message.contains(root) else {
                    throw FaultEnumerator<ExportRun>.Problem("the error does not name the file and the reason: \(run.error ?? "none")")
                }
            }
            let got: [String: String]
            switch Self.imported(root + "/export") {
            case .success(let c): got = c
            case .failure(let error): throw FaultEnumerator<ExportRun>.Problem("the export folder does not import: \(error.message)")
            }
            if run.succeeded {
                guard got == newContents else { throw FaultEnumerator<ExportRun>.Problem("a finished export is not the new one (\(got.count) documents)") }
            } else {
                guard got == oldContents || got == newContents else { throw FaultEnumerator<ExportRun>.Problem("the folder holds neither export (\(got.count) documents)") }
            }
            let staging = (try? FileManager.default.contentsOfDirectory(atPath: root).filter { $0.hasPrefix(".export.incoming") }) ?? []
            return (got == newContents ? "new export whole" : "previous export whole") + (staging.isEmpty ? "" : ", staging folder left")
        })
        let tally = enumerator.enumerate()
        Self.report(tally)
        #expect(tally.problems.isEmpty, "\(tally.problems.prefix(10))")
        #expect(tally.totalPoints > 30)
    }

    // MARK: Import

    final class ImportRun {
        var store: DurableStore?
        var succeeded = false
        var error: String?
    }

    @Test("an import into a data directory (3 batches of 10): every call × every fault")
    func importData() throws {
        let workspace = try FaultWorkspace("import")
        defer { workspace.remove() }
        let clock = ManualClock(now: testEpoch)
        let base: [String: String]
        do {
            let store = try DurableStore.open(directory: workspace.template + "/data")
            let db = store.database(Self.id, clock: clock)
            try db.commit((0..<5).map { .set(testPath("e/d\($0)"), Self.fields(-$0 - 1)) })
            base = Self.contents(db)
            store.close()
        }
        // Batches of 10 (the default is 1,000): the same calls per batch, a hundredth of the work.
        let batchSize = 10
        let documents = 2 * batchSize + batchSize / 2
        try ExportFolder.replace(workspace.template + "/export", with: [try Self.state(documents, version: 3)])
        // The documents in the order the import reads (and commits) them.
        var order: [(String, String)] = []
        try ExportReader.open(workspace.template + "/export")!.forEach { (d: ExportedDocument) throws(FirestoreError) in order.append((d.path.description, "\(d.fields)")) }
        func afterBatches(_ n: Int) -> [String: String] {
            var out = base
            for (path, fields) in order.prefix(n * batchSize) { out[path] = fields }
            return out
        }
        let batches = (order.count + batchSize - 1) / batchSize
        let enumerator = FaultEnumerator<ImportRun>(operation: "import", template: workspace.template, run: { root, disk in
            let run = ImportRun()
            guard let store = try? DurableStore.open(directory: root + "/data", options: Self.quiet) else { return run }
            run.store = store
            disk.arm()
            do {
                _ = try DataImport.run(root + "/export", project: nil, databases: { store.database($0, clock: clock) }, batchSize: batchSize)
                run.succeeded = true
            } catch { run.error = Self.message(error) }
            return run
        }, settle: { run, died in
            if died { run.store?.abandon() } else { run.store?.close() }
        }, check: { root, run, point, powerLost in
            guard run.store != nil else { throw FaultEnumerator<ImportRun>.Problem("the store did not open before the fault") }
            if let point, !point.fault.isDeath {
                guard let message = run.error, Self.reasonNamed(message, point.fault), message.contains(root + "/") else {
                    throw FaultEnumerator<ImportRun>.Problem("the error does not name the file and the reason: \(run.error ?? "none")")
                }
            }
            let store: DurableStore
            do { store = try DurableStore.open(directory: root + "/data", options: Self.quiet) } catch {
                throw FaultEnumerator<ImportRun>.Problem("start-up refused: \(error)")
            }
            defer { store.close() }
            let got = Self.contents(store.database(Self.id, clock: ManualClock(now: testTime(1000))))
            if run.succeeded {
                guard got == afterBatches(batches) else { throw FaultEnumerator<ImportRun>.Problem("a finished import is not all there") }
                return "imported whole"
            }
            guard let whole = (0...batches).first(where: { afterBatches($0) == got }) else {
                throw FaultEnumerator<ImportRun>.Problem("the data directory holds part of a batch (\(got.count) documents)")
            }
            // Stopped part way by the disk: the error says how far it got — the batches
            // recovered, or one fewer when the last one's sync failed after its write.
            if let point, !point.fault.isDeath, whole >= 2 {
                let told = [whole, whole - 1].map { "The import stopped after \(min($0 * batchSize, order.count)) documents" }
                guard let message = run.error, told.contains(where: { message.contains($0) }) else {
                    throw FaultEnumerator<ImportRun>.Problem("the error does not say how far the import got: \(run.error ?? "none")")
                }
            }
            return whole == 0 ? "nothing imported" : whole == batches ? "imported whole (error after the last batch)" : "\(whole) of \(batches) batches imported, each whole"
        })
        let tally = enumerator.enumerate()
        Self.report(tally)
        #expect(tally.problems.isEmpty, "\(tally.problems.prefix(10))")
        #expect(tally.totalPoints > 20)
    }
}
