/// `type`, `is_type`, `storage_size`.
extension PipelineFunctions {
    static let typeFunctions: [String: PipelineFunctionImplementation] = [
        "type": { c throws(PipelineFailure) in
            try c.arity(1)
            guard let v = try c.arg(0) else { return .string("absent") }
            return .string(PipelineTypes.name(of: v))
        },
        "is_type": { c throws(PipelineFailure) in
            try c.arity(2)
            let wanted = try c.string(try c.arg(1) ?? .null).lowercased()
            guard let v = try c.arg(0) else { return .boolean(false) }
            let name = PipelineTypes.name(of: v)
            switch wanted {
            case "number": return .boolean(v.isNumber)
            case "int32": if case .integer(let i) = v { return .boolean(Int32(exactly: i) != nil) } else { return .boolean(false) }
            default: return .boolean(name == wanted)
            }
        },
        "storage_size": { c throws(PipelineFailure) in
            try c.arity(1)
            guard let v = try c.arg(0) else { return nil }
            return .integer(Int64(DocumentLimits.valueSize(v)))
        },
    ]
}
