import Foundation

/// `document_id`, `collection_id`, `parent`, `reference_slice`, and `geo_distance`.
extension PipelineFunctions {
    static let referenceFunctions: [String: PipelineFunctionImplementation] = [
        "document_id": { c throws(PipelineFailure) in
            try c.arity(1)
            guard let v = try c.arg(0), v != .null else { return .null }
            guard case .reference(let name) = v else { throw c.expect(v, "a reference") }
            return .string(name.path.lastSegment)
        },
        "collection_id": { c throws(PipelineFailure) in
            try c.arity(1)
            guard let v = try c.arg(0), v != .null else { return .null }
            guard case .reference(let name) = v else { throw c.expect(v, "a reference") }
            return .string(name.path.parent.lastSegment)
        },
        "current_document": { c throws(PipelineFailure) in
            try c.arity(0)
            return .map(c.scope.row.fields)
        },
        "geo_distance": { c throws(PipelineFailure) in
            try c.arity(2)
            guard let args = try c.presentArgs() else { return .null }
            guard case .geoPoint(let a) = args[0] else { throw c.expect(args[0], "a geo point") }
            guard case .geoPoint(let b) = args[1] else { throw c.expect(args[1], "a geo point") }
            return .double(haversineMeters(a, b))
        },
    ]

    /// The great-circle distance in meters on a sphere of the Earth's mean radius.
    static func haversineMeters(_ a: GeoPoint, _ b: GeoPoint) -> Double {
        let r = 6_371_008.8
        let toRadians = Double.pi / 180
        let dLat = (b.latitude - a.latitude) * toRadians, dLng = (b.longitude - a.longitude) * toRadians
        let h = sin(dLat / 2) * sin(dLat / 2)
            + cos(a.latitude * toRadians) * cos(b.latitude * toRadians) * sin(dLng / 2) * sin(dLng / 2)
        return 2 * r * asin(min(1, h.squareRoot()))
    }
}
