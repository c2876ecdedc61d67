import Foundation

/// A vector of doubles (`FieldValue.vector`), stored as Firestore's vector type.
public final class VectorValue: NSObject, @unchecked Sendable {
    public let array: [Double]

    /// Only the `[Double]` form, as in the SDK: a `[Float]` overload would make
    /// `VectorValue([1, 2])` ambiguous (use `FieldValue.vector(_:)` for floats).
    public init(_ array: [Double]) { self.array = array }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? VectorValue else { return false }
        return array.count == other.array.count && zip(array, other.array).allSatisfy { $0.bitPattern == $1.bitPattern }
    }

    public override var hash: Int { array.count }

    public override var description: String { "<FIRVectorValue: \(array)>" }
}

extension VectorValue: Codable {
    private enum CodingKeys: String, CodingKey { case array }

    public convenience init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(try c.decode([Double].self, forKey: .array))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(array, forKey: .array)
    }
}
