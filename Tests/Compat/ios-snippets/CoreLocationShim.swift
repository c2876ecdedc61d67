// The two CoreLocation types Google's pipeline snippets touch, for Linux (no CoreLocation).
public struct CLLocationCoordinate2D {
    public var latitude: Double
    public var longitude: Double
}

public struct CLLocation {
    public let coordinate: CLLocationCoordinate2D

    public init(latitude: Double, longitude: Double) {
        coordinate = CLLocationCoordinate2D(latitude: latitude, longitude: longitude)
    }
}
