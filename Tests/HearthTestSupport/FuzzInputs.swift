import Foundation

/// The committed inputs of a fuzz target (Fuzz/, docs/reliability.md#fuzzing): the files of
/// `Fuzz/corpus/<target>` and `Fuzz/regressions/<target>`, which the corpus tests replay.
public enum FuzzInputs {
    public static func of(_ target: String) -> [[UInt8]] {
        // Tests/HearthTestSupport/FuzzInputs.swift → the repository.
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        var out: [[UInt8]] = []
        for folder in ["Fuzz/corpus/", "Fuzz/regressions/"] {
            let dir = repo.appendingPathComponent(folder + target)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            for name in names.sorted() {
                if let data = FileManager.default.contents(atPath: dir.appendingPathComponent(name).path) { out.append(Array(data)) }
            }
        }
        return out
    }
}
