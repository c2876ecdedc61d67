/// Why a data directory cannot be opened: the file, the byte offset and what to do.
public struct DurableStoreError: Error, CustomStringConvertible, Sendable {
    public let message: String

    public var description: String { message }

    init(_ message: String) { self.message = message }

    static func corrupt(file: String, offset: Int, problem: String, advice: String) -> DurableStoreError {
        DurableStoreError("\(file) is damaged at byte \(offset): \(problem). \(advice)")
    }

    /// The disk refused a call (no space, an I/O error): nothing is damaged, so the advice
    /// is to fix the disk and start again.
    static func io(_ message: String) -> DurableStoreError {
        DurableStoreError("\(message.hasSuffix(".") ? String(message.dropLast()) : message). The disk refused the call; nothing acknowledged is lost: free space or fix the disk, then start Hearth again.")
    }

    static func damaged(_ error: LogFormatError, advice: String) -> DurableStoreError {
        if case .io(let message) = error.problem { return io(message) }
        return corrupt(file: error.file, offset: error.offset, problem: error.reason, advice: advice)
    }
}
