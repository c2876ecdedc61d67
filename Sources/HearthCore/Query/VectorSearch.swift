import Foundation

/// `findNearest`: the query's filtered documents ranked by the distance between a vector
/// field and the query vector (a flat, exact search — what a flat vector index gives).
enum VectorSearch {
    static func nearest(_ spec: FindNearest, among candidates: [Document]) -> [Document] {
        var ranked: [(doc: Document, distance: Double)] = []
        for doc in candidates {
            guard case .vector(let v) = doc.fields.value(at: spec.vectorField), v.count == spec.queryVector.count,
                  let d = distance(v, spec.queryVector, spec.distanceMeasure) else { continue }
            if let t = spec.distanceThreshold {
                if spec.distanceMeasure == .dotProduct ? d < t : d > t { continue }
            }
            ranked.append((doc, d))
        }
        // Most similar first: smallest distance, except DOT_PRODUCT (largest); ties by name.
        ranked.sort { a, b in
            if a.distance != b.distance { return spec.distanceMeasure == .dotProduct ? a.distance > b.distance : a.distance < b.distance }
            return ResourcePath.compare(a.doc.path, b.doc.path) < 0
        }
        return ranked.prefix(spec.limit).map { entry in
            guard let field = spec.distanceResultField else { return entry.doc }
            var doc = entry.doc
            doc.fields.setValue(.double(entry.distance), at: field)
            return doc
        }
    }

    /// Nil when undefined (COSINE with a zero vector).
    static func distance(_ a: [Double], _ b: [Double], _ measure: FindNearest.DistanceMeasure) -> Double? {
        switch measure {
        case .euclidean:
            var s = 0.0
            for i in a.indices { let d = a[i] - b[i]; s += d * d }
            return s.squareRoot()
        case .dotProduct:
            var s = 0.0
            for i in a.indices { s += a[i] * b[i] }
            return s
        case .cosine:
            var dot = 0.0, na = 0.0, nb = 0.0
            for i in a.indices { dot += a[i] * b[i]; na += a[i] * a[i]; nb += b[i] * b[i] }
            guard na > 0, nb > 0 else { return nil }
            return 1 - dot / (na.squareRoot() * nb.squareRoot())
        }
    }
}
