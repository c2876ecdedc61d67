/// `value`'s payload when its dynamic type is exactly `T`, which the caller must have
/// checked (`type(of:)` on an existential is a runtime call, so only debug builds repeat
/// it here). Opening the existential and reinterpreting skips the runtime's general cast
/// (`as!` walks bridging, optionals and protocol conformances first), which costs more
/// than the rest of reading a scalar out of `[String: Any]`.
@inline(__always)
func exactCast<T>(_ value: Any, to _: T.Type) -> T {
    assert(type(of: value) == T.self, "exactCast: \(type(of: value)) is not \(T.self)")
    func open<U>(_ u: U) -> T { unsafeBitCast(u, to: T.self) }
    return _openExistential(value, do: open)
}
