// The floor: what a bare HTTP/2 server spends to answer the same requests. Debian's `nghttpd
// --no-tls` (nghttp2-server) serves, for each workload, a fixed file of the size of Hearth's
// answer to it (measured once, after the checks); h2load sends it the same request (method,
// headers, body) at its own path. Its CPU per request is the cost of the protocol work alone
// (sockets, HTTP/2 framing, HPACK, a read of a cached file); Hearth's ÷ the floor's is what
// Hearth spends beyond it. REST get is HTTP/1.1 against Hearth but HTTP/2 against the floor
// (nghttpd speaks HTTP/2 only), with an answer of the same size.
//
// Allocations per request come from `MallocCount`: a small C library compiled here with the
// system's `cc` and preloaded into Hearth and the floor (not the JVM: Java objects are not
// malloc'd, so a count would mean nothing there).
import Foundation
#if canImport(Glibc)
import Glibc
#endif

enum FloorServer {
    static func nghttpd() -> String? { ChildProcess.which("nghttpd") ?? (FileManager.default.isExecutableFile(atPath: "/usr/sbin/nghttpd") ? "/usr/sbin/nghttpd" : nil) }

    /// The document root's file for a workload (its path on the floor: "/" + the name).
    static func path(_ kind: ServerWorkload.Kind) -> String { "/" + kind.flag }

    /// `nghttpd --no-tls` on `port` (0: a free one), one worker, serving `htdocs`.
    static func start(port: Int, htdocs: String, malloc: MallocCount?) throws -> ServerUnderTest {
        guard let nghttpd = nghttpd() else { throw BenchError("nghttpd is not installed (apt-get install -y nghttp2-server)") }
        let port = port > 0 ? port : try freePort()
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-bench-floor-\(getpid()).log").path
        let group = try ChildProcess.spawn([nghttpd, "--no-tls", "-n", "1", "-d", htdocs, String(port)], log: log,
                                           environment: malloc?.environment(for: "floor") ?? [:])
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let fd = try? connectTCP(host: "127.0.0.1", port: port) {
                close(fd)
                return ServerUnderTest.started(label: "floor", port: port, group: group, log: log,
                                               allocations: malloc?.counterFile(for: "floor"), isFloor: true)
            }
            usleep(20_000)
        }
        ChildProcess.stop(group: group)
        throw BenchError("nghttpd did not listen on 127.0.0.1:\(port) within 10 s (log: \(log))")
    }

    /// Writes the floor's answer to `kind`: `size` bytes (their value does not matter).
    static func writeAnswer(_ kind: ServerWorkload.Kind, size: Int, htdocs: String) throws {
        try Data(repeating: 0x61, count: size).write(to: URL(fileURLWithPath: htdocs + path(kind)))
    }

    /// A port nothing listens on now (the kernel's pick).
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw BenchError("bind: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Counts a process's allocations (malloc, calloc, realloc, memalign, aligned_alloc,
/// posix_memalign) with a preloaded library: each thread adds to its own counter in a file
/// the library maps shared, so the benchmark reads the sum at any moment without stopping the
/// server. A counter of one's own costs a thread an increment on a cache line no other thread
/// writes: about a nanosecond an allocation, not a contended atomic.
final class MallocCount: Sendable {
    static let slots = 512
    private let library: String
    private let directory: String

    /// Compiles the library into a temporary directory; nil (with a note) without a C compiler.
    static func build(progress: (String) -> Void) -> MallocCount? {
        guard let cc = ChildProcess.which("cc") ?? ChildProcess.which("gcc") ?? ChildProcess.which("clang") else {
            progress("note: no C compiler (cc): allocations per request are not counted")
            return nil
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-bench-malloc-\(getpid())").path
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try Data(source.utf8).write(to: URL(fileURLWithPath: dir + "/malloc-count.c"))
        } catch {
            progress("note: cannot write the allocation counter (\(error)): allocations are not counted")
            return nil
        }
        let (status, output) = ChildProcess.run([cc, "-O2", "-shared", "-fPIC", "-o", dir + "/malloc-count.so", dir + "/malloc-count.c"], stderr: true)
        guard status == 0 else {
            progress("note: the allocation counter did not compile (\(String(decoding: output.prefix(300), as: UTF8.self))): allocations are not counted")
            return nil
        }
        return MallocCount(library: dir + "/malloc-count.so", directory: dir)
    }

    private init(library: String, directory: String) {
        self.library = library
        self.directory = directory
    }

    func counterFile(for label: String) -> String { "\(directory)/\(label).count" }

    /// The environment that preloads the counter into a process.
    func environment(for label: String) -> [String: String] {
        ["LD_PRELOAD": library, "HEARTH_BENCH_MALLOC_COUNT": counterFile(for: label)]
    }

    /// The allocations counted so far in `file` (nil: nothing counted there).
    static func read(_ file: String) -> UInt64? {
        guard let data = FileManager.default.contents(atPath: file), data.count >= 64 * (slots + 1) else { return nil }
        return data.withUnsafeBytes { raw in
            (0...slots).reduce(UInt64(0)) { $0 &+ raw.loadUnaligned(fromByteOffset: $1 * 64, as: UInt64.self) }
        }
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }

    /// The library: each function counts and calls the allocator that comes next (glibc's,
    /// or jemalloc's in nghttpd). A thread's first allocation claims a slot (a 64-byte line
    /// of its own); threads past `SLOTS` share the last one with atomic adds. Allocations
    /// before the constructor ran (the loader's) are not counted; none of them is a request's.
    static let source = """
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <fcntl.h>
        #include <stddef.h>
        #include <stdint.h>
        #include <stdlib.h>
        #include <sys/mman.h>
        #include <unistd.h>
        #define SLOTS \(slots)
        struct slot { uint64_t n; char pad[56]; };
        static struct slot *slots;
        static unsigned next_slot;
        static __thread struct slot *mine __attribute__((tls_model("initial-exec")));
        static void *(*next_malloc)(size_t);
        static void *(*next_calloc)(size_t, size_t);
        static void *(*next_realloc)(void *, size_t);
        static void *(*next_memalign)(size_t, size_t);
        static void *(*next_aligned_alloc)(size_t, size_t);
        static int (*next_posix_memalign)(void **, size_t, size_t);
        /* What calloc answers while dlsym looks the allocator up (it may calloc): never freed. */
        static char early[4096];
        static size_t early_used;
        static int resolving;
        static void resolve(void) {
            resolving = 1;
            next_malloc = dlsym(RTLD_NEXT, "malloc");
            next_calloc = dlsym(RTLD_NEXT, "calloc");
            next_realloc = dlsym(RTLD_NEXT, "realloc");
            next_memalign = dlsym(RTLD_NEXT, "memalign");
            next_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
            next_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
            resolving = 0;
        }
        __attribute__((constructor)) static void start(void) {
            if (!next_malloc) resolve();
            const char *path = getenv("HEARTH_BENCH_MALLOC_COUNT");
            if (!path) return;
            int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
            if (fd < 0) return;
            size_t size = sizeof(struct slot) * (SLOTS + 1);
            if (ftruncate(fd, size) != 0) { close(fd); return; }
            void *p = mmap(0, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            close(fd);
            if (p != MAP_FAILED) __atomic_store_n(&slots, (struct slot *)p, __ATOMIC_RELEASE);
        }
        static inline void count(void) {
            struct slot *s = mine;
            if (__builtin_expect(s == 0, 0)) {
                struct slot *all = __atomic_load_n(&slots, __ATOMIC_ACQUIRE);
                if (!all) return;
                unsigned i = __atomic_fetch_add(&next_slot, 1, __ATOMIC_RELAXED);
                s = mine = &all[i < SLOTS ? i : SLOTS];
            }
            if (s == &slots[SLOTS]) __atomic_fetch_add(&s->n, 1, __ATOMIC_RELAXED);
            else __atomic_store_n(&s->n, s->n + 1, __ATOMIC_RELAXED);
        }
        void *malloc(size_t n) { if (!next_malloc) resolve(); count(); return next_malloc(n); }
        void *calloc(size_t a, size_t b) {
            if (!next_calloc) {
                if (resolving) {
                    size_t n = (a * b + 15) & ~(size_t)15;
                    if (early_used + n > sizeof early) return 0;
                    void *p = early + early_used;
                    early_used += n;
                    return p;
                }
                resolve();
            }
            count();
            return next_calloc(a, b);
        }
        void *realloc(void *p, size_t n) { if (!next_realloc) resolve(); count(); return next_realloc(p, n); }
        void *memalign(size_t a, size_t n) { if (!next_memalign) resolve(); count(); return next_memalign(a, n); }
        void *aligned_alloc(size_t a, size_t n) { if (!next_aligned_alloc) resolve(); count(); return next_aligned_alloc(a, n); }
        int posix_memalign(void **out, size_t a, size_t n) {
            if (!next_posix_memalign) resolve();
            count();
            return next_posix_memalign(out, a, n);
        }
        """
}
