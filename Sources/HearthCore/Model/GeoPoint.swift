/// A latitude/longitude pair; latitude in [-90, 90], longitude in [-180, 180].
public struct GeoPoint: Sendable, Hashable, CustomStringConvertible {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    public static func validated(latitude: Double, longitude: Double) throws(FirestoreError) -> GeoPoint {
        guard latitude.isFinite, latitude >= -90, latitude <= 90 else {
            throw .invalidArgument("GeoPoint requires a latitude value in the range of [-90, 90], but was \(latitude)")
        }
        guard longitude.isFinite, longitude >= -180, longitude <= 180 else {
            throw .invalidArgument("GeoPoint requires a longitude value in the range of [-180, 180], but was \(longitude)")
        }
        return GeoPoint(latitude: latitude, longitude: longitude)
    }

    public var description: String { "GeoPoint(\(latitude), \(longitude))" }
}
