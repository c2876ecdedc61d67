import Foundation
import Testing
@testable import HearthCore

/// Bugs the storage fault enumeration found, each pinned by the smallest case that showed it.
extension StorageFaultTests {

    @Test("an export whose checksums are valid but whose last record is not an entity is refused before anything is imported")
    func damagedRecordNeverHalfLoads() throws {
        let workspace = try FaultWorkspace("damaged-record")
        defer { workspace.remove() }
        let documents = 2 * DataImport.batchSize + 10
        try ExportFolder.replace(workspace.template + "/export", with: [try StorageFaultTests.state(documents, version: 1)])
        // A record that passes its checksum but is no entity, after every good one.
        let data = workspace.template + "/export/firestore_export/all_namespaces/all_kinds/output-0"
        let size = try FileManager.default.attributesOfItem(atPath: data)[.size] as! Int
        var framer = LogFramer(fileOffset: size)
        var out: [UInt8] = []
        framer.frame([0xFF, 0xFF, 0xFF, 0x01], into: &out)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: data))
        handle.seekToEndOfFile()
        handle.write(Data(out))
        try handle.close()

        let registry = DatabaseRegistry(clock: ManualClock(now: testEpoch))
        try registry.database(Self.id).commit([.set(testPath("e/d0"), testFields(["kept": .boolean(true)]))])
        var thrown: FirestoreError?
        do { _ = try DataImport.run(workspace.template + "/export", project: nil, databases: registry.database) } catch { thrown = error }
        #expect(thrown?.message.contains("output-0") == true, "\(thrown?.message ?? "no error")")
        // Nothing changed: the stored document is the one from before, no imported one is there.
        let state = registry.database(Self.id).state()
        #expect(state.documentCount == 1)
        #expect(state.allDocuments().first?.fields == testFields(["kept": .boolean(true)]))
    }

    @Test("an export interrupted by a crash leaves a staging folder that the next export removes")
    func staleStagingRemoved() throws {
        let workspace = try FaultWorkspace("stale-staging")
        defer { workspace.remove() }
        // The folder a killed process (a pid that is not running) left beside the export.
        let stale = workspace.template + "/.export.incoming-2147480000"
        try FileManager.default.createDirectory(atPath: stale + "/firestore_export", withIntermediateDirectories: true)
        // Another live process's export in progress is not touched (our parent is alive).
        let live = workspace.template + "/.export.incoming-\(getppid())"
        try FileManager.default.createDirectory(atPath: live, withIntermediateDirectories: true)
        try ExportFolder.replace(workspace.template + "/export", with: [try StorageFaultTests.state(3, version: 1)])
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(FileManager.default.fileExists(atPath: live))
    }

    @Test("a data directory Hearth creates survives a power loss with the commits acknowledged in it")
    func newDirectorySurvivesPowerLoss() throws {
        let workspace = try FaultWorkspace("new-directory")
        defer { workspace.remove() }
        let disk = RecordingDisk(root: workspace.template)
        FileSystemFaults.install(disk)
        let store = try DurableStore.open(directory: workspace.template + "/new/data")
        try store.database(Self.id, clock: ManualClock(now: testEpoch)).commit([.set(testPath("c/a"), testFields(["n": .integer(1)]))])
        FileSystemFaults.remove(disk)
        store.abandon()
        disk.losePower()
        let reopened = try DurableStore.open(directory: workspace.template + "/new/data")
        defer { reopened.close() }
        #expect(reopened.database(Self.id, clock: ManualClock(now: testEpoch)).state().documentCount == 1)
    }
}
