import Foundation
import HearthCore

/// A geographic location: latitude in [-90, 90], longitude in [-180, 180].
public final class GeoPoint: NSObject, NSCopying, @unchecked Sendable {
    public let latitude: Double
    public let longitude: Double

    /// Out-of-range or non-finite coordinates are a programmer error, as in the SDK.
    public init(latitude: Double, longitude: Double) {
        let p = requireValid { () throws(FirestoreError) in
            try HearthCore.GeoPoint.validated(latitude: latitude, longitude: longitude)
        }
        self.latitude = p.latitude
        self.longitude = p.longitude
    }

    var core: HearthCore.GeoPoint { HearthCore.GeoPoint(latitude: latitude, longitude: longitude) }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? GeoPoint else { return false }
        return latitude == other.latitude && longitude == other.longitude
    }

    public override var hash: Int { latitude.hashValue &* 31 &+ longitude.hashValue }

    public override var description: String { "<FIRGeoPoint: (\(latitude), \(longitude))>" }
}

extension GeoPoint: Codable {
    private enum CodingKeys: String, CodingKey { case latitude, longitude }

    public convenience init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(latitude: try c.decode(Double.self, forKey: .latitude), longitude: try c.decode(Double.self, forKey: .longitude))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(latitude, forKey: .latitude)
        try c.encode(longitude, forKey: .longitude)
    }
}
