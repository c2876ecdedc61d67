import Foundation
import Testing
@testable import HearthServer

/// The Suite launcher JAR Hearth writes itself: the zip and class files are parsed back here
/// byte by byte; when a Java runtime is on PATH, the JAR is also run (skipped otherwise, so
/// `swift test` needs no Java).
@Suite struct SuiteLauncherJARTests {
    // MARK: Zip

    @Test("CRC-32 is zip's (the standard check value of \"123456789\")")
    func crc() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([]) == 0)
    }

    @Test("the JAR is a zip whose central directory names the manifest and both classes, stored, with matching CRCs")
    func zipParsesBack() throws {
        let entries = try ZipReader.entries(SuiteLauncherJAR.bytes(hearthBinary: "/opt/hearth/bin/hearth"))
        #expect(entries.map(\.name) == ["META-INF/MANIFEST.MF", "HearthLauncher.class", "HearthLauncherHook.class"])
        let manifest = String(decoding: try #require(entries.first).data, as: UTF8.self)
        #expect(manifest.hasPrefix("Manifest-Version: 1.0\r\n"))
        #expect(manifest.contains("\r\nMain-Class: HearthLauncher\r\n"))
        #expect(manifest.hasSuffix("\r\n\r\n"))
    }

    @Test("the same binary path gives the same bytes (fixed timestamps)")
    func deterministic() {
        #expect(SuiteLauncherJAR.bytes(hearthBinary: "/a") == SuiteLauncherJAR.bytes(hearthBinary: "/a"))
        #expect(SuiteLauncherJAR.bytes(hearthBinary: "/a") != SuiteLauncherJAR.bytes(hearthBinary: "/b"))
    }

    // MARK: Class files

    @Test("the main class: version 49, public, the binary path and the flag in its pool, main's code ends in return")
    func mainClass() throws {
        let path = "/home/dev/héarth/.build/debug/hearth"
        let cf = try ClassReader(SuiteLauncherJAR.mainClassFile(hearthBinary: path))
        #expect(cf.major == 49 && cf.minor == 0)
        #expect(cf.access == 0x21)
        #expect(cf.thisClass == "HearthLauncher" && cf.superClass == "java/lang/Object")
        #expect(cf.strings.contains(path) && cf.strings.contains("--exit-on-stdin-eof") && cf.strings.contains("HEARTH_BINARY"))
        #expect(cf.strings.contains("serve") && cf.strings.contains("--console-port"))
        let main = try #require(cf.methods.first { $0.name == "main" })
        #expect(main.descriptor == "([Ljava/lang/String;)V" && main.access == 0x09)
        #expect(main.code.last == 0xB1)
        // The one branch (ifnonnull) lands inside the method, on an instruction boundary we wrote (ldc … aload_0).
        let at = try #require(main.code.firstIndex(of: 0xC7))
        let target = at + Int(Int16(bitPattern: UInt16(main.code[at + 1]) << 8 | UInt16(main.code[at + 2])))
        #expect(target > at && target < main.code.count && main.code[target] == 0x2A)
    }

    @Test("the hook class extends Thread, keeps the Process in a field and halts with its status")
    func hookClass() throws {
        let cf = try ClassReader(SuiteLauncherJAR.hookClassFile())
        #expect(cf.thisClass == "HearthLauncherHook" && cf.superClass == "java/lang/Thread")
        #expect(cf.fieldNames == ["p"])
        #expect(cf.methods.map(\.name) == ["<init>", "run"])
        #expect(cf.methodRefs.contains("java/lang/Runtime.halt(I)V") && cf.methodRefs.contains("java/lang/Process.destroy()V"))
    }

    @Test("modified UTF-8: NUL as two bytes, a character past the BMP as two three-byte surrogates")
    func modifiedUTF8() {
        #expect(ClassFileWriter.modifiedUTF8("a\0") == [0x61, 0xC0, 0x80])
        #expect(ClassFileWriter.modifiedUTF8("é") == [0xC3, 0xA9])
        #expect(ClassFileWriter.modifiedUTF8("😀") == [0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80])
    }

    // MARK: Under a real JVM (skipped without one)

    static let java: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        .map { "\($0)/java" }.first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test("java -jar runs HEARTH_BINARY serve ARGS --console-port 0 --exit-on-stdin-eof and exits with its status",
          .enabled(if: java != nil, "no java on PATH"))
    func runsUnderJava() throws {
        let dir = try Scratch()
        let stub = try dir.script("stub", "#!/bin/sh\necho \"$@\"\nexit 7\n")
        let run = try dir.java(stub: stub, args: ["--port", "8080", "--rules", "/a b.rules"])
        run.waitUntilExit()
        #expect(run.terminationStatus == 7)
        #expect(try dir.stdout() == "serve --port 8080 --rules /a b.rules --console-port 0 --exit-on-stdin-eof\n")
    }

    @Test("SIGTERM to the JVM reaches the child through the hook; the JVM exits with the child's status",
          .enabled(if: java != nil, "no java on PATH"))
    func forwardsSIGTERM() throws {
        let dir = try Scratch()
        let stub = try dir.script("stub", "#!/bin/sh\ntrap 'echo got-term; exit 0' TERM\necho ready\nwhile :; do sleep 0.05; done\n")
        let run = try dir.java(stub: stub, args: [])
        try dir.waitFor("ready")
        // The hook is registered just after the child starts: give the JVM that moment (a real
        // hearth takes far longer to start than this window; its stdin pipe covers the rest).
        Thread.sleep(forTimeInterval: 0.5)
        kill(run.processIdentifier, SIGTERM)
        run.waitUntilExit()
        #expect(run.terminationStatus == 0)
        #expect(try dir.stdout().contains("got-term"))
    }

    @Test("SIGKILL of the JVM closes the child's stdin; a child that exits on end of input is not orphaned",
          .enabled(if: java != nil, "no java on PATH"))
    func sigkillClosesStdin() throws {
        let dir = try Scratch()
        let stub = try dir.script("stub", "#!/bin/sh\necho ready\ncat > /dev/null\necho eof\n")
        let run = try dir.java(stub: stub, args: [])
        try dir.waitFor("ready")
        kill(run.processIdentifier, SIGKILL)
        run.waitUntilExit()
        try dir.waitFor("eof")
    }

    @Test("a child killed by a signal makes the JVM exit non-zero",
          .enabled(if: java != nil, "no java on PATH"))
    func childKilled() throws {
        let dir = try Scratch()
        let stub = try dir.script("stub", "#!/bin/sh\necho $$ > \"$(dirname \"$0\")/pid\"\necho ready\nwhile :; do sleep 0.05; done\n")
        let run = try dir.java(stub: stub, args: [])
        try dir.waitFor("ready")
        let pid = try #require(Int32(String(contentsOf: dir.url.appendingPathComponent("pid"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        kill(pid, SIGKILL)
        run.waitUntilExit()
        #expect(run.terminationStatus == 128 + SIGKILL)
    }

    /// A scratch folder with the JAR, a stub "hearth" and the JVM's output.
    final class Scratch {
        let url: URL
        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-jar-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(at: url) }

        func script(_ name: String, _ text: String) throws -> String {
            let path = url.appendingPathComponent(name).path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o755)
            return path
        }

        func java(stub: String, args: [String]) throws -> Process {
            let jar = url.appendingPathComponent("launcher.jar")
            // The path written in is wrong on purpose: HEARTH_BINARY must win.
            try Data(SuiteLauncherJAR.bytes(hearthBinary: "/nonexistent/hearth")).write(to: jar)
            let out = url.appendingPathComponent("out")
            _ = FileManager.default.createFile(atPath: out.path, contents: nil)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: try #require(SuiteLauncherJARTests.java))
            p.arguments = ["-Duser.language=en", "-jar", jar.path] + args
            var env = ProcessInfo.processInfo.environment
            env["HEARTH_BINARY"] = stub
            p.environment = env
            p.standardOutput = try FileHandle(forWritingTo: out)
            try p.run()
            return p
        }

        func stdout() throws -> String { try String(contentsOf: url.appendingPathComponent("out"), encoding: .utf8) }

        func waitFor(_ text: String, seconds: Double = 30) throws {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if (try? stdout())?.contains(text) == true { return }
                Thread.sleep(forTimeInterval: 0.05)
            }
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "'\(text)' not seen in \(seconds) s: \((try? stdout()) ?? "")"])
        }
    }
}

/// Reads a zip back through its central directory, checking each entry's local header, that
/// it is stored, and its CRC.
enum ZipReader {
    struct Entry { let name: String; let data: [UInt8] }
    struct Bad: Error, CustomStringConvertible { let description: String }

    static func entries(_ z: [UInt8]) throws -> [Entry] {
        func u16(_ i: Int) -> Int { Int(z[i]) | Int(z[i + 1]) << 8 }
        func u32(_ i: Int) -> Int { u16(i) | u16(i + 2) << 16 }
        let end = z.count - 22
        guard end >= 0, u32(end) == 0x0605_4B50 else { throw Bad(description: "no end record") }
        let count = u16(end + 10), size = u32(end + 12), offset = u32(end + 16)
        guard offset + size == end else { throw Bad(description: "central directory is not just before the end record") }
        var at = offset, out: [Entry] = []
        for _ in 0..<count {
            guard u32(at) == 0x0201_4B50 else { throw Bad(description: "bad central header at \(at)") }
            let method = u16(at + 10), crc = u32(at + 16), csize = u32(at + 20), usize = u32(at + 24)
            let nameLength = u16(at + 28), extra = u16(at + 30), comment = u16(at + 32), local = u32(at + 42)
            let name = String(decoding: z[(at + 46)..<(at + 46 + nameLength)], as: UTF8.self)
            guard method == 0, csize == usize else { throw Bad(description: "\(name) is not stored") }
            guard u32(local) == 0x0403_4B50, u32(local + 14) == crc, u16(local + 26) == nameLength else { throw Bad(description: "\(name): local header disagrees") }
            let start = local + 30 + nameLength + u16(local + 28)
            let data = Array(z[start..<(start + usize)])
            guard CRC32.checksum(data) == UInt32(crc) else { throw Bad(description: "\(name): CRC mismatch") }
            out.append(Entry(name: name, data: data))
            at += 46 + nameLength + extra + comment
        }
        return out
    }
}

/// Reads back what `ClassFileWriter` writes: the constant pool, fields, methods and their code.
struct ClassReader {
    struct Method { let access: Int; let name: String; let descriptor: String; let code: [UInt8] }
    var minor = 0, major = 0, access = 0
    var thisClass = "", superClass = ""
    var strings: [String] = [], fieldNames: [String] = [], methods: [Method] = [], methodRefs: [String] = []

    init(_ b: [UInt8]) throws {
        var at = 0
        func u8() -> Int { defer { at += 1 }; return Int(b[at]) }
        func u16() -> Int { (u8() << 8) | u8() }
        func u32() -> Int { (u16() << 16) | u16() }
        guard u32() == 0xCAFE_BABE else { throw ZipReader.Bad(description: "no magic") }
        minor = u16(); major = u16()
        let count = u16()
        var pool: [Int: (tag: Int, a: Int, b: Int, text: String)] = [:]
        var i = 1
        while i < count {
            let tag = u8()
            switch tag {
            case 1:
                let n = u16()
                pool[i] = (1, 0, 0, String(decoding: b[at..<(at + n)], as: UTF8.self))
                at += n
            case 7, 8: pool[i] = (tag, u16(), 0, "")
            case 9, 10, 12: pool[i] = (tag, u16(), u16(), "")
            default: throw ZipReader.Bad(description: "unexpected constant tag \(tag)")
            }
            i += 1
        }
        func utf(_ i: Int) -> String { pool[i]?.text ?? "?" }
        func cls(_ i: Int) -> String { utf(pool[i]?.a ?? 0) }
        strings = pool.values.filter { $0.tag == 8 }.map { utf($0.a) }
        methodRefs = pool.values.filter { $0.tag == 10 }.map { ref in
            let nt = pool[ref.b]!
            return "\(cls(ref.a)).\(utf(nt.a))\(utf(nt.b))"
        }
        access = u16()
        thisClass = cls(u16()); superClass = cls(u16())
        guard u16() == 0 else { throw ZipReader.Bad(description: "interfaces") }
        for _ in 0..<u16() {
            _ = u16(); fieldNames.append(utf(u16())); _ = u16()
            guard u16() == 0 else { throw ZipReader.Bad(description: "field attributes") }
        }
        for _ in 0..<u16() {
            let acc = u16(), name = utf(u16()), desc = utf(u16())
            var code: [UInt8] = []
            for _ in 0..<u16() {
                let attr = utf(u16()), length = u32(), end = at + length
                if attr == "Code" {
                    _ = u16(); _ = u16()
                    let n = u32()
                    code = Array(b[at..<(at + n)])
                }
                at = end
            }
            methods.append(Method(access: acc, name: name, descriptor: desc, code: code))
        }
        guard u16() == 0, at == b.count else { throw ZipReader.Bad(description: "trailing bytes") }
    }
}
