/// `cosine_distance`, `euclidean_distance`, `dot_product`, `vector_length`. Both operands must
/// be vectors (an array of numbers is accepted as one) of the same dimension.
extension PipelineFunctions {
    static let vectorFunctions: [String: PipelineFunctionImplementation] = [
        "cosine_distance": { c throws(PipelineFailure) in try distance(c, .cosine) },
        "euclidean_distance": { c throws(PipelineFailure) in try distance(c, .euclidean) },
        "dot_product": { c throws(PipelineFailure) in try distance(c, .dotProduct) },
        "vector_length": { c throws(PipelineFailure) in
            try c.arity(1)
            guard let v = try c.arg(0), v != .null else { return .null }
            return .integer(Int64(try vector(v, c).count))
        },
    ]

    static func vector(_ v: Value, _ c: PipelineCall) throws(PipelineFailure) -> [Double] {
        switch v {
        case .vector(let d): return d
        case .array(let items):
            var out: [Double] = []
            for item in items {
                guard item.isNumber else { throw c.expect(v, "a vector") }
                out.append(double(item))
            }
            return out
        default: throw c.expect(v, "a vector")
        }
    }

    private static func distance(_ c: PipelineCall, _ measure: FindNearest.DistanceMeasure) throws(PipelineFailure) -> Value? {
        try c.arity(2)
        guard let args = try c.presentArgs() else { return .null }
        let a = try vector(args[0], c), b = try vector(args[1], c)
        guard a.count == b.count else {
            throw c.typeError("expects vectors of the same dimension, but got \(a.count) and \(b.count)")
        }
        guard let d = VectorSearch.distance(a, b, measure) else { throw c.typeError("is undefined for a zero vector") }
        return .double(d)
    }
}
