// The C library's socket spellings that differ between Linux and Darwin, for the benchmark's
// own clients (RESTBenchmark, ListenFanout, ServerUnderTest) — here, so each of those files
// compiles on both (docs/platforms.md).
#if canImport(Glibc)
import Glibc

/// SOCK_STREAM: an enum case in Glibc's module, an Int32 in Darwin's.
let tcpStreamType = Int32(SOCK_STREAM.rawValue)
/// send(2) flags that keep a write to a closed connection from raising SIGPIPE.
let sendNoSignal = Int32(MSG_NOSIGNAL)
#elseif canImport(Darwin)
import Darwin

let tcpStreamType = SOCK_STREAM
/// Darwin has no MSG_NOSIGNAL; main.swift ignores SIGPIPE instead (a write then fails with EPIPE).
let sendNoSignal: Int32 = 0
#endif

/// close(2), callable from a type that has a `close` method of its own.
func closeDescriptor(_ fd: Int32) { _ = close(fd) }
