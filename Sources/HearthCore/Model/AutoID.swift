/// Document IDs the client makes up (`CollectionReference.document()`, `addDocument`, REST
/// createDocument without a `documentId`): 20 characters from `[A-Za-z0-9]`, drawn from the
/// system's cryptographically secure generator, as the SDKs do (docs/semantics.md#paths-and-ids).
/// Every front end calls this one generator.
public enum AutoID {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)

    /// A new ID; 62^20 (about 2^119) are possible, so two never meet in practice.
    public static func generate() -> String {
        var g = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: 20)
        for i in 0..<20 {
            // Rejection sampling keeps the distribution uniform over the 62 characters.
            var r: UInt8
            repeat { r = UInt8.random(in: 0...255, using: &g) } while r >= 248
            bytes[i] = alphabet[Int(r % 62)]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
