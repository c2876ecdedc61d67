#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How many times longer a test should wait when the process runs under a sanitizer:
/// ThreadSanitizer makes Hearth 5–15 times slower, AddressSanitizer 2–3 times, and a bound
/// set for a plain build (a socket's receive timeout, say) then fails a test that is only
/// slow. Told at run time by the sanitizer runtime's symbols, which a sanitized binary
/// exports (`swift test --sanitize=…` needs no other flag): 10 under TSan, 4 under ASan, else 1.
public enum SanitizerSlowdown {
    public static let factor: Int = {
        #if os(Linux)
        // RTLD_DEFAULT is the null handle on glibc: every loaded object, the executable first.
        if dlsym(nil, "__tsan_acquire") != nil { return 10 }
        if dlsym(nil, "__asan_init") != nil { return 4 }
        #endif
        return 1
    }()
}
