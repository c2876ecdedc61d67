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

    /// What a written `{__type__: "__vector__", value: [...]}` map means: a vector when its
    /// value is a list of doubles, an error when the list holds anything else (the official
    /// emulator's text), and the map itself when it is not shaped like a vector. Every decoder
    /// of written values (REST, protobuf, bundles) goes through here.
    public static func vectorOrMap(_ fields: MapValue) throws(FirestoreError) -> Value {
        guard fields.count == 2, case .string("__vector__")? = fields["__type__"], case .array(let items)? = fields["value"] else {
            return .map(fields)
        }
        var components: [Double] = []
        components.reserveCapacity(items.count)
        for item in items {
            guard case .double(let d) = item else { throw .invalidArgument("Vector must only contain values of type 'double'") }
            components.append(d)
        }
        return .vector(components)
    }
}
