/// How a vector travels and is stored outside the engine: as a map of exactly two fields,
/// `__type__: "__vector__"` and `value: [doubles]`, the form production stores — over REST
/// and gRPC, in bundles, pipelines' constants, and as security rules see it
/// (docs/protocol.md#vectors). The one conversion every front end uses.
extension Value {
    /// The map a vector travels as.
    public static func vectorFields(_ components: [Double]) -> MapValue {
        // Already in key order ("__type__" < "value" by UTF-8 bytes).
        MapValue(sortedEntries: [("__type__", .string("__vector__")), ("value", .array(components.map(Value.double)))])
    }

    /// The components of the vector `fields` stands for, or nil when the map is not shaped as
    /// one (any other field, a component that is not a number). Integer components are
    /// widened, as production reads them.
    public static func vectorComponents(of fields: MapValue) -> [Double]? {
        guard fields.count == 2, case .string("__vector__")? = fields["__type__"],
              case .array(let items)? = fields["value"] else { return nil }
        var components: [Double] = []
        components.reserveCapacity(items.count)
        for item in items {
            switch item {
            case .double(let d): components.append(d)
            case .integer(let i): components.append(Double(i))
            default: return nil
            }
        }
        return components
    }

    /// A map read from the wire: the vector it stands for, or the map itself.
    public static func vectorOrMap(_ fields: MapValue) -> Value {
        vectorComponents(of: fields).map(Value.vector) ?? .map(fields)
    }
}
