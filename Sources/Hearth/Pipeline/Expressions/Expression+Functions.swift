import Foundation

// The SDK's expression methods: each builds the function call the protocol names.
// `Sendable` parameters take constants (or expressions); lists become `array(…)`.

private func fn(_ name: String, _ args: Any?...) -> FunctionExpression {
    FunctionExpression(name, nodes: args.map(expressionNode))
}

private func condition(_ name: String, _ args: Any?...) -> BooleanExpression {
    BooleanFunction(name, nodes: args.map(expressionNode))
}

private func list(_ items: [Any]) -> ExpressionNode { .function("array", items.map(expressionNode)) }

public extension Expression {
    func asBoolean() -> BooleanExpression { BooleanFunction("conditional", nodes: [expressionNode(self), .constant(true), .constant(false)]) }
    func `as`(_ name: String) -> AliasedExpression { AliasedExpression(self, name) }
    func ascending() -> Ordering { Ordering(expression: self, direction: .ascending) }
    func descending() -> Ordering { Ordering(expression: self, direction: .descending) }

    // MARK: Arithmetic
    func add(_ value: Expression) -> FunctionExpression { fn("add", self, value) }
    func add(_ value: Sendable) -> FunctionExpression { fn("add", self, value) }
    func subtract(_ other: Expression) -> FunctionExpression { fn("subtract", self, other) }
    func subtract(_ other: Sendable) -> FunctionExpression { fn("subtract", self, other) }
    func multiply(_ value: Expression) -> FunctionExpression { fn("multiply", self, value) }
    func multiply(_ value: Sendable) -> FunctionExpression { fn("multiply", self, value) }
    func divide(_ other: Expression) -> FunctionExpression { fn("divide", self, other) }
    func divide(_ other: Sendable) -> FunctionExpression { fn("divide", self, other) }
    func mod(_ other: Expression) -> FunctionExpression { fn("mod", self, other) }
    func mod(_ other: Sendable) -> FunctionExpression { fn("mod", self, other) }
    func round() -> FunctionExpression { fn("round", self) }
    func sqrt() -> FunctionExpression { fn("sqrt", self) }
    func pow(_ exponent: Sendable) -> FunctionExpression { fn("pow", self, exponent) }
    func pow(_ exponent: Expression) -> FunctionExpression { fn("pow", self, exponent) }
    func ln() -> FunctionExpression { fn("ln", self) }
    func log10() -> FunctionExpression { fn("log10", self) }
    func floor() -> FunctionExpression { fn("floor", self) }
    func exp() -> FunctionExpression { fn("exp", self) }
    func ceil() -> FunctionExpression { fn("ceil", self) }
    func abs() -> FunctionExpression { fn("abs", self) }
    func trunc() -> FunctionExpression { fn("trunc", self) }
    func truncToPrecision(_ decimalPlace: Sendable) -> FunctionExpression { fn("trunc", self, decimalPlace) }
    func truncToPrecision(_ decimalPlace: Expression) -> FunctionExpression { fn("trunc", self, decimalPlace) }

    // MARK: Comparison
    func greaterThan(_ other: Expression) -> BooleanExpression { condition("greater_than", self, other) }
    func greaterThan(_ other: Sendable) -> BooleanExpression { condition("greater_than", self, other) }
    func greaterThanOrEqual(_ other: Expression) -> BooleanExpression { condition("greater_than_or_equal", self, other) }
    func greaterThanOrEqual(_ other: Sendable) -> BooleanExpression { condition("greater_than_or_equal", self, other) }
    func lessThan(_ other: Expression) -> BooleanExpression { condition("less_than", self, other) }
    func lessThan(_ other: Sendable) -> BooleanExpression { condition("less_than", self, other) }
    func lessThanOrEqual(_ other: Expression) -> BooleanExpression { condition("less_than_or_equal", self, other) }
    func lessThanOrEqual(_ other: Sendable) -> BooleanExpression { condition("less_than_or_equal", self, other) }
    func equal(_ other: Expression) -> BooleanExpression { condition("equal", self, other) }
    func equal(_ other: Sendable) -> BooleanExpression { condition("equal", self, other) }
    func notEqual(_ other: Expression) -> BooleanExpression { condition("not_equal", self, other) }
    func notEqual(_ other: Sendable) -> BooleanExpression { condition("not_equal", self, other) }
    func equalAny(_ others: [Expression]) -> BooleanExpression { BooleanFunction("equal_any", nodes: [expressionNode(self), list(others)]) }
    func equalAny(_ others: [Sendable]) -> BooleanExpression { BooleanFunction("equal_any", nodes: [expressionNode(self), list(others)]) }
    func equalAny(_ arrayExpression: Expression) -> BooleanExpression { condition("equal_any", self, arrayExpression) }
    func notEqualAny(_ others: [Expression]) -> BooleanExpression { BooleanFunction("not_equal_any", nodes: [expressionNode(self), list(others)]) }
    func notEqualAny(_ others: [Sendable]) -> BooleanExpression { BooleanFunction("not_equal_any", nodes: [expressionNode(self), list(others)]) }
    func notEqualAny(_ arrayExpression: Expression) -> BooleanExpression { condition("not_equal_any", self, arrayExpression) }
    func cmp(_ other: Expression) -> FunctionExpression { fn("cmp", self, other) }
    func logicalMaximum(_ expressions: [Expression]) -> FunctionExpression { FunctionExpression("maximum", nodes: [expressionNode(self)] + expressions.map(expressionNode)) }
    func logicalMaximum(_ values: [Sendable]) -> FunctionExpression { FunctionExpression("maximum", nodes: [expressionNode(self)] + values.map(expressionNode)) }
    func logicalMinimum(_ expressions: [Expression]) -> FunctionExpression { FunctionExpression("minimum", nodes: [expressionNode(self)] + expressions.map(expressionNode)) }
    func logicalMinimum(_ values: [Sendable]) -> FunctionExpression { FunctionExpression("minimum", nodes: [expressionNode(self)] + values.map(expressionNode)) }

    // MARK: Existence, errors, types
    func exists() -> BooleanExpression { condition("exists", self) }
    func isError() -> BooleanExpression { condition("is_error", self) }
    func isAbsent() -> BooleanExpression { condition("is_absent", self) }
    func ifError(_ catchExpression: Expression) -> FunctionExpression { fn("if_error", self, catchExpression) }
    func ifError(_ catchValue: Sendable) -> FunctionExpression { fn("if_error", self, catchValue) }
    func ifAbsent(_ defaultValue: Sendable) -> FunctionExpression { fn("if_absent", self, defaultValue) }
    func ifNull(_ defaultValue: Sendable) -> FunctionExpression { fn("if_null", self, defaultValue) }
    func ifNull(_ defaultExpression: Expression) -> FunctionExpression { fn("if_null", self, defaultExpression) }
    func coalesce(_ values: [Expression]) -> FunctionExpression { FunctionExpression("coalesce", nodes: [expressionNode(self)] + values.map(expressionNode)) }
    func type() -> FunctionExpression { fn("type", self) }
    func isType(_ type: String) -> BooleanExpression { condition("is_type", self, type) }

    // MARK: Arrays
    func arrayReverse() -> FunctionExpression { fn("array_reverse", self) }
    func arrayConcat(_ arrays: [Expression]) -> FunctionExpression { FunctionExpression("array_concat", nodes: [expressionNode(self)] + arrays.map(expressionNode)) }
    func arrayConcat(_ arrays: [[Sendable]]) -> FunctionExpression { FunctionExpression("array_concat", nodes: [expressionNode(self)] + arrays.map(list)) }
    func arrayContains(_ element: Expression) -> BooleanExpression { condition("array_contains", self, element) }
    func arrayContains(_ element: Sendable) -> BooleanExpression { condition("array_contains", self, element) }
    func arrayContainsAll(_ values: [Expression]) -> BooleanExpression { BooleanFunction("array_contains_all", nodes: [expressionNode(self), list(values)]) }
    func arrayContainsAll(_ values: [Sendable]) -> BooleanExpression { BooleanFunction("array_contains_all", nodes: [expressionNode(self), list(values)]) }
    func arrayContainsAll(_ arrayExpression: Expression) -> BooleanExpression { condition("array_contains_all", self, arrayExpression) }
    func arrayContainsAny(_ values: [Expression]) -> BooleanExpression { BooleanFunction("array_contains_any", nodes: [expressionNode(self), list(values)]) }
    func arrayContainsAny(_ values: [Sendable]) -> BooleanExpression { BooleanFunction("array_contains_any", nodes: [expressionNode(self), list(values)]) }
    func arrayContainsAny(_ arrayExpression: Expression) -> BooleanExpression { condition("array_contains_any", self, arrayExpression) }
    func arrayLength() -> FunctionExpression { fn("array_length", self) }
    func arrayFilter(alias: String, filter: BooleanExpression) -> FunctionExpression { fn("array_filter", self, alias, filter) }
    func arrayTransform(elementAlias: String, transform: Expression) -> FunctionExpression { fn("array_transform", self, elementAlias, transform) }
    func arrayTransformWithIndex(elementAlias: String, indexAlias: String, transform: Expression) -> FunctionExpression {
        fn("array_transform", self, elementAlias, indexAlias, transform)
    }
    func arraySlice(offset: Int) -> FunctionExpression { fn("array_slice", self, offset) }
    func arraySlice(offset: Expression) -> FunctionExpression { fn("array_slice", self, offset) }
    func arraySlice(offset: Int, length: Int) -> FunctionExpression { fn("array_slice", self, offset, length) }
    func arraySlice(offset: Expression, length: Expression) -> FunctionExpression { fn("array_slice", self, offset, length) }
    func arraySlice(offset: Int, length: Expression) -> FunctionExpression { fn("array_slice", self, offset, length) }
    func arraySlice(offset: Expression, length: Int) -> FunctionExpression { fn("array_slice", self, offset, length) }
    func arrayFirst() -> FunctionExpression { fn("array_first", self) }
    func arrayFirstN(_ n: Int) -> FunctionExpression { fn("array_first_n", self, n) }
    func arrayFirstN(_ n: Expression) -> FunctionExpression { fn("array_first_n", self, n) }
    func arrayLast() -> FunctionExpression { fn("array_last", self) }
    func arrayLastN(_ n: Int) -> FunctionExpression { fn("array_last_n", self, n) }
    func arrayLastN(_ n: Expression) -> FunctionExpression { fn("array_last_n", self, n) }
    func arrayGet(_ offset: Int) -> FunctionExpression { fn("array_get", self, offset) }
    func arrayGet(_ offsetExpression: Expression) -> FunctionExpression { fn("array_get", self, offsetExpression) }
    func arrayIndexOf(_ value: Sendable) -> FunctionExpression { fn("array_index_of", self, value, "first") }
    func arrayIndexOf(_ value: Expression) -> FunctionExpression { fn("array_index_of", self, value, "first") }
    func arrayLastIndexOf(_ value: Sendable) -> FunctionExpression { fn("array_index_of", self, value, "last") }
    func arrayLastIndexOf(_ value: Expression) -> FunctionExpression { fn("array_index_of", self, value, "last") }
    func arrayIndexOfAll(_ value: Sendable) -> FunctionExpression { fn("array_index_of_all", self, value) }
    func arrayIndexOfAll(_ value: Expression) -> FunctionExpression { fn("array_index_of_all", self, value) }
    func arrayMaximum() -> FunctionExpression { fn("maximum", self) }
    func arrayMinimum() -> FunctionExpression { fn("minimum", self) }
    func arrayMaximumN(_ n: Int) -> FunctionExpression { fn("maximum_n", self, n) }
    func arrayMaximumN(_ n: Expression) -> FunctionExpression { fn("maximum_n", self, n) }
    func arrayMinimumN(_ n: Int) -> FunctionExpression { fn("minimum_n", self, n) }
    func arrayMinimumN(_ n: Expression) -> FunctionExpression { fn("minimum_n", self, n) }
    func join(delimiter: String) -> FunctionExpression { fn("join", self, delimiter) }

    // MARK: Strings
    func split(delimiter: String) -> FunctionExpression { fn("split", self, delimiter) }
    func split(delimiter: Expression) -> FunctionExpression { fn("split", self, delimiter) }
    func length() -> FunctionExpression { fn("length", self) }
    func charLength() -> FunctionExpression { fn("char_length", self) }
    func byteLength() -> FunctionExpression { fn("byte_length", self) }
    func like(_ pattern: String) -> BooleanExpression { condition("like", self, pattern) }
    func like(_ pattern: Expression) -> BooleanExpression { condition("like", self, pattern) }
    func regexContains(_ pattern: String) -> BooleanExpression { condition("regex_contains", self, pattern) }
    func regexContains(_ pattern: Expression) -> BooleanExpression { condition("regex_contains", self, pattern) }
    func regexFind(_ pattern: String) -> FunctionExpression { fn("regex_find", self, pattern) }
    func regexFind(_ pattern: Expression) -> FunctionExpression { fn("regex_find", self, pattern) }
    func regexFindAll(_ pattern: String) -> FunctionExpression { fn("regex_find_all", self, pattern) }
    func regexFindAll(_ pattern: Expression) -> FunctionExpression { fn("regex_find_all", self, pattern) }
    func regexMatch(_ pattern: String) -> BooleanExpression { condition("regex_match", self, pattern) }
    func regexMatch(_ pattern: Expression) -> BooleanExpression { condition("regex_match", self, pattern) }
    func stringContains(_ substring: String) -> BooleanExpression { condition("string_contains", self, substring) }
    func stringContains(_ expression: Expression) -> BooleanExpression { condition("string_contains", self, expression) }
    func startsWith(_ prefix: String) -> BooleanExpression { condition("starts_with", self, prefix) }
    func startsWith(_ prefix: Expression) -> BooleanExpression { condition("starts_with", self, prefix) }
    func endsWith(_ suffix: String) -> BooleanExpression { condition("ends_with", self, suffix) }
    func endsWith(_ suffix: Expression) -> BooleanExpression { condition("ends_with", self, suffix) }
    func toLower() -> FunctionExpression { fn("to_lower", self) }
    func toUpper() -> FunctionExpression { fn("to_upper", self) }
    func trim() -> FunctionExpression { fn("trim", self) }
    func trim(_ value: String) -> FunctionExpression { fn("trim", self, value) }
    func trim(_ value: Expression) -> FunctionExpression { fn("trim", self, value) }
    func ltrim() -> FunctionExpression { fn("ltrim", self) }
    func ltrim(_ value: String) -> FunctionExpression { fn("ltrim", self, value) }
    func ltrim(_ value: Expression) -> FunctionExpression { fn("ltrim", self, value) }
    func rtrim() -> FunctionExpression { fn("rtrim", self) }
    func rtrim(_ value: String) -> FunctionExpression { fn("rtrim", self, value) }
    func rtrim(_ value: Expression) -> FunctionExpression { fn("rtrim", self, value) }
    func stringRepeat(_ count: Int) -> FunctionExpression { fn("string_repeat", self, count) }
    func stringRepeat(_ count: Expression) -> FunctionExpression { fn("string_repeat", self, count) }
    func stringReplaceAll(_ oldValue: String, with newValue: String) -> FunctionExpression { fn("string_replace_all", self, oldValue, newValue) }
    func stringReplaceAll(_ oldValue: Expression, with newValue: Expression) -> FunctionExpression { fn("string_replace_all", self, oldValue, newValue) }
    func stringReplaceOne(_ oldValue: String, with newValue: String) -> FunctionExpression { fn("string_replace_one", self, oldValue, newValue) }
    func stringReplaceOne(_ oldValue: Expression, with newValue: Expression) -> FunctionExpression { fn("string_replace_one", self, oldValue, newValue) }
    func stringIndexOf(_ substring: String) -> FunctionExpression { fn("string_index_of", self, substring) }
    func stringIndexOf(_ substring: Expression) -> FunctionExpression { fn("string_index_of", self, substring) }
    func stringConcat(_ strings: [Sendable]) -> FunctionExpression { FunctionExpression("string_concat", nodes: [expressionNode(self)] + strings.map(expressionNode)) }
    func stringConcat(_ strings: [Expression]) -> FunctionExpression { FunctionExpression("string_concat", nodes: [expressionNode(self)] + strings.map(expressionNode)) }
    func concat(_ values: [Sendable]) -> FunctionExpression { FunctionExpression("concat", nodes: [expressionNode(self)] + values.map(expressionNode)) }
    func reverse() -> FunctionExpression { fn("string_reverse", self) }
    func stringReverse() -> FunctionExpression { fn("string_reverse", self) }
    func substring(position: Int, length: Int? = nil) -> FunctionExpression {
        length.map { fn("substring", self, position, $0) } ?? fn("substring", self, position)
    }
    func substring(position: Expression, length: Expression? = nil) -> FunctionExpression {
        length.map { fn("substring", self, position, $0) } ?? fn("substring", self, position)
    }

    // MARK: Maps
    func getField(_ key: String) -> FunctionExpression { fn("get_field", self, key) }
    func getField(_ expression: Expression) -> FunctionExpression { fn("get_field", self, expression) }
    func mapGet(_ subfield: String) -> FunctionExpression { fn("map_get", self, subfield) }
    func mapRemove(_ key: String) -> FunctionExpression { fn("map_remove", self, key) }
    func mapRemove(_ keyExpression: Expression) -> FunctionExpression { fn("map_remove", self, keyExpression) }
    func mapMerge(_ maps: [[String: Sendable]]) -> FunctionExpression { FunctionExpression("map_merge", nodes: [expressionNode(self)] + maps.map(expressionNode)) }
    func mapMerge(_ maps: [Expression]) -> FunctionExpression { FunctionExpression("map_merge", nodes: [expressionNode(self)] + maps.map(expressionNode)) }
    func mapSet(_ key: Expression, _ value: Expression, _ moreKeyValues: Expression...) -> FunctionExpression {
        FunctionExpression("map_set", nodes: [expressionNode(self), expressionNode(key), expressionNode(value)] + moreKeyValues.map(expressionNode))
    }
    func mapSet(_ key: String, _ value: Sendable, _ moreKeyValues: Sendable...) -> FunctionExpression {
        FunctionExpression("map_set", nodes: [expressionNode(self), .constant(key), expressionNode(value)] + moreKeyValues.map(expressionNode))
    }
    func mapKeys() -> FunctionExpression { fn("map_keys", self) }
    func mapValues() -> FunctionExpression { fn("map_values", self) }
    func mapEntries() -> FunctionExpression { fn("map_entries", self) }

    // MARK: Aggregates
    func countDistinct() -> AggregateFunction { AggregateFunction(functionName: "count_distinct", args: [self]) }
    func count() -> AggregateFunction { AggregateFunction(functionName: "count", args: [self]) }
    func sum() -> AggregateFunction { AggregateFunction(functionName: "sum", args: [self]) }
    func average() -> AggregateFunction { AggregateFunction(functionName: "average", args: [self]) }
    func minimum() -> AggregateFunction { AggregateFunction(functionName: "minimum", args: [self]) }
    func maximum() -> AggregateFunction { AggregateFunction(functionName: "maximum", args: [self]) }
    func first() -> AggregateFunction { AggregateFunction(functionName: "first", args: [self]) }
    func last() -> AggregateFunction { AggregateFunction(functionName: "last", args: [self]) }
    func arrayAgg() -> AggregateFunction { AggregateFunction(functionName: "array_agg", args: [self]) }
    func arrayAggDistinct() -> AggregateFunction { AggregateFunction(functionName: "array_agg_distinct", args: [self]) }

    // MARK: Vectors
    func vectorLength() -> FunctionExpression { fn("vector_length", self) }
    func cosineDistance(_ expression: Expression) -> FunctionExpression { fn("cosine_distance", self, expression) }
    func cosineDistance(_ vector: VectorValue) -> FunctionExpression { fn("cosine_distance", self, vector) }
    func cosineDistance(_ vector: [Double]) -> FunctionExpression { fn("cosine_distance", self, VectorValue(vector)) }
    func dotProduct(_ expression: Expression) -> FunctionExpression { fn("dot_product", self, expression) }
    func dotProduct(_ vector: VectorValue) -> FunctionExpression { fn("dot_product", self, vector) }
    func dotProduct(_ vector: [Double]) -> FunctionExpression { fn("dot_product", self, VectorValue(vector)) }
    func euclideanDistance(_ expression: Expression) -> FunctionExpression { fn("euclidean_distance", self, expression) }
    func euclideanDistance(_ vector: VectorValue) -> FunctionExpression { fn("euclidean_distance", self, vector) }
    func euclideanDistance(_ vector: [Double]) -> FunctionExpression { fn("euclidean_distance", self, VectorValue(vector)) }

    // MARK: Timestamps
    func unixMicrosToTimestamp() -> FunctionExpression { fn("unix_micros_to_timestamp", self) }
    func timestampToUnixMicros() -> FunctionExpression { fn("timestamp_to_unix_micros", self) }
    func unixMillisToTimestamp() -> FunctionExpression { fn("unix_millis_to_timestamp", self) }
    func timestampToUnixMillis() -> FunctionExpression { fn("timestamp_to_unix_millis", self) }
    func unixSecondsToTimestamp() -> FunctionExpression { fn("unix_seconds_to_timestamp", self) }
    func timestampToUnixSeconds() -> FunctionExpression { fn("timestamp_to_unix_seconds", self) }
    func timestampTruncate(granularity: TimeGranularity) -> FunctionExpression { fn("timestamp_trunc", self, granularity.rawValue) }
    func timestampTruncate(granularity: Sendable) -> FunctionExpression { fn("timestamp_trunc", self, granularity) }
    func timestampTruncate(granularity: TimeGranularity, timezone: Sendable) -> FunctionExpression { fn("timestamp_trunc", self, granularity.rawValue, timezone) }
    func timestampTruncate(granularity: Sendable, timezone: Sendable) -> FunctionExpression { fn("timestamp_trunc", self, granularity, timezone) }
    func timestampDiff(_ start: Expression, _ unit: TimeUnit) -> FunctionExpression { fn("timestamp_diff", self, start, unit.rawValue) }
    func timestampDiff(_ start: Expression, _ unit: Sendable) -> FunctionExpression { fn("timestamp_diff", self, start, unit) }
    func timestampExtract(part: TimePart) -> FunctionExpression { fn("timestamp_extract", self, part.rawValue) }
    func timestampExtract(part: Sendable) -> FunctionExpression { fn("timestamp_extract", self, part) }
    func timestampExtract(part: TimePart, timezone: Sendable) -> FunctionExpression { fn("timestamp_extract", self, part.rawValue, timezone) }
    func timestampExtract(part: Sendable, timezone: Sendable) -> FunctionExpression { fn("timestamp_extract", self, part, timezone) }
    func timestampAdd(_ amount: Int, _ unit: TimeUnit) -> FunctionExpression { fn("timestamp_add", self, unit.rawValue, amount) }
    func timestampAdd(amount: Expression, unit: Sendable) -> FunctionExpression { fn("timestamp_add", self, (unit as? TimeUnit)?.rawValue ?? unit, amount) }
    func timestampSubtract(_ amount: Int, _ unit: TimeUnit) -> FunctionExpression { fn("timestamp_subtract", self, unit.rawValue, amount) }
    func timestampSubtract(amount: Expression, unit: Sendable) -> FunctionExpression { fn("timestamp_subtract", self, (unit as? TimeUnit)?.rawValue ?? unit, amount) }

    // MARK: References
    func documentId() -> FunctionExpression { fn("document_id", self) }
    func collectionId() -> FunctionExpression { fn("collection_id", self) }
}
