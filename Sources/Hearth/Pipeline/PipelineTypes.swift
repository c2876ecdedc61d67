/// `findNearest`'s distance measure.
public struct DistanceMeasure: Sendable, Equatable, Hashable {
    let rawValue: String
    public static let euclidean = DistanceMeasure(rawValue: "euclidean")
    public static let cosine = DistanceMeasure(rawValue: "cosine")
    public static let dotProduct = DistanceMeasure(rawValue: "dot_product")
}

/// Units of `timestampAdd` / `timestampSubtract` / `timestampDiff`.
public struct TimeUnit: Sendable, Equatable, Hashable {
    public let rawValue: String
    public static let microsecond = TimeUnit(rawValue: "microsecond")
    public static let millisecond = TimeUnit(rawValue: "millisecond")
    public static let second = TimeUnit(rawValue: "second")
    public static let minute = TimeUnit(rawValue: "minute")
    public static let hour = TimeUnit(rawValue: "hour")
    public static let day = TimeUnit(rawValue: "day")
}

/// Granularities of `timestampTruncate`.
public struct TimeGranularity: Sendable, Equatable, Hashable {
    public let rawValue: String
    public static let microsecond = TimeGranularity(rawValue: "microsecond")
    public static let millisecond = TimeGranularity(rawValue: "millisecond")
    public static let second = TimeGranularity(rawValue: "second")
    public static let minute = TimeGranularity(rawValue: "minute")
    public static let hour = TimeGranularity(rawValue: "hour")
    public static let day = TimeGranularity(rawValue: "day")
    public static let week = TimeGranularity(rawValue: "week")
    public static let weekMonday = TimeGranularity(rawValue: "week(monday)")
    public static let weekTuesday = TimeGranularity(rawValue: "week(tuesday)")
    public static let weekWednesday = TimeGranularity(rawValue: "week(wednesday)")
    public static let weekThursday = TimeGranularity(rawValue: "week(thursday)")
    public static let weekFriday = TimeGranularity(rawValue: "week(friday)")
    public static let weekSaturday = TimeGranularity(rawValue: "week(saturday)")
    public static let weekSunday = TimeGranularity(rawValue: "week(sunday)")
    public static let isoweek = TimeGranularity(rawValue: "isoweek")
    public static let month = TimeGranularity(rawValue: "month")
    public static let quarter = TimeGranularity(rawValue: "quarter")
    public static let year = TimeGranularity(rawValue: "year")
    public static let isoyear = TimeGranularity(rawValue: "isoyear")
}

/// Parts of `timestampExtract`.
public struct TimePart: Sendable, Equatable, Hashable {
    public let rawValue: String
    public static let microsecond = TimePart(rawValue: "microsecond")
    public static let millisecond = TimePart(rawValue: "millisecond")
    public static let second = TimePart(rawValue: "second")
    public static let minute = TimePart(rawValue: "minute")
    public static let hour = TimePart(rawValue: "hour")
    public static let day = TimePart(rawValue: "day")
    public static let dayOfWeek = TimePart(rawValue: "dayofweek")
    public static let dayOfYear = TimePart(rawValue: "dayofyear")
    public static let week = TimePart(rawValue: "week")
    public static let weekMonday = TimePart(rawValue: "week(monday)")
    public static let weekSunday = TimePart(rawValue: "week(sunday)")
    public static let isoweek = TimePart(rawValue: "isoweek")
    public static let month = TimePart(rawValue: "month")
    public static let quarter = TimePart(rawValue: "quarter")
    public static let year = TimePart(rawValue: "year")
    public static let isoyear = TimePart(rawValue: "isoyear")
}
