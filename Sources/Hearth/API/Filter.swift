import Foundation
import HearthCore

/// A where clause built independently of a query, for `Query.whereFilter(_:)`: a single
/// field comparison, or an AND / OR of filters nested to any depth.
///
/// Like the SDK, a filter keeps the caller's raw value; it is read (and checked) when the
/// filter is added to a query, because document-ID values depend on the query's collection.
/// Field-path strings are parsed here, so a malformed path fails at creation.
public final class Filter: @unchecked Sendable {
    enum Kind {
        case field(HearthCore.FieldPath, FieldOperator, Any)
        case composite(QueryFilter.CompositeOperator, [Filter])
    }

    let kind: Kind

    private init(_ kind: Kind) { self.kind = kind }

    private static func field(_ field: String, _ op: FieldOperator, _ value: Any) -> Filter {
        Filter(.field(Query.parseFieldPath(field), op, value))
    }

    private static func field(_ path: FieldPath, _ op: FieldOperator, _ value: Any) -> Filter {
        Filter(.field(path.core, op, value))
    }

    // MARK: String paths

    public static func whereField(_ field: String, isEqualTo value: Any) -> Filter {
        Self.field(field, .equal, value)
    }

    public static func whereField(_ field: String, isNotEqualTo value: Any) -> Filter {
        Self.field(field, .notEqual, value)
    }

    public static func whereField(_ field: String, isGreaterThan value: Any) -> Filter {
        Self.field(field, .greaterThan, value)
    }

    /// ">=" — the SDK's label here is `isGreaterOrEqualTo` (the `Query` method says
    /// `isGreaterThanOrEqualTo`).
    public static func whereField(_ field: String, isGreaterOrEqualTo value: Any) -> Filter {
        Self.field(field, .greaterThanOrEqual, value)
    }

    public static func whereField(_ field: String, isLessThan value: Any) -> Filter {
        Self.field(field, .lessThan, value)
    }

    public static func whereField(_ field: String, isLessThanOrEqualTo value: Any) -> Filter {
        Self.field(field, .lessThanOrEqual, value)
    }

    public static func whereField(_ field: String, arrayContains value: Any) -> Filter {
        Self.field(field, .arrayContains, value)
    }

    public static func whereField(_ field: String, arrayContainsAny values: [Any]) -> Filter {
        Self.field(field, .arrayContainsAny, values)
    }

    public static func whereField(_ field: String, in values: [Any]) -> Filter {
        Self.field(field, .in, values)
    }

    public static func whereField(_ field: String, notIn values: [Any]) -> Filter {
        Self.field(field, .notIn, values)
    }

    // MARK: FieldPath paths

    public static func whereField(_ path: FieldPath, isEqualTo value: Any) -> Filter {
        Self.field(path, .equal, value)
    }

    public static func whereField(_ path: FieldPath, isNotEqualTo value: Any) -> Filter {
        Self.field(path, .notEqual, value)
    }

    public static func whereField(_ path: FieldPath, isGreaterThan value: Any) -> Filter {
        Self.field(path, .greaterThan, value)
    }

    public static func whereField(_ path: FieldPath, isGreaterOrEqualTo value: Any) -> Filter {
        Self.field(path, .greaterThanOrEqual, value)
    }

    public static func whereField(_ path: FieldPath, isLessThan value: Any) -> Filter {
        Self.field(path, .lessThan, value)
    }

    public static func whereField(_ path: FieldPath, isLessThanOrEqualTo value: Any) -> Filter {
        Self.field(path, .lessThanOrEqual, value)
    }

    public static func whereField(_ path: FieldPath, arrayContains value: Any) -> Filter {
        Self.field(path, .arrayContains, value)
    }

    public static func whereField(_ path: FieldPath, arrayContainsAny values: [Any]) -> Filter {
        Self.field(path, .arrayContainsAny, values)
    }

    public static func whereField(_ path: FieldPath, in values: [Any]) -> Filter {
        Self.field(path, .in, values)
    }

    public static func whereField(_ path: FieldPath, notIn values: [Any]) -> Filter {
        Self.field(path, .notIn, values)
    }

    // MARK: Composites

    /// Matches documents matching any of `filters`. When added to a query, a composite with
    /// one (non-empty) child is that child, and an empty composite adds nothing.
    public static func orFilter(_ filters: [Filter]) -> Filter {
        Filter(.composite(.or, filters))
    }

    /// Matches documents matching all of `filters` (same collapsing as `orFilter`).
    public static func andFilter(_ filters: [Filter]) -> Filter {
        Filter(.composite(.and, filters))
    }
}
