// The former names of the time source types. Deprecated API lives in this folder, one file per
// area, until the release that removes it.

/// The former name of ``TimeSource``.
@available(*, deprecated, renamed: "TimeSource")
public typealias MiddlewareClock = TimeSource
/// The former name of ``SystemTimeSource``.
@available(*, deprecated, renamed: "SystemTimeSource")
public typealias SystemMiddlewareClock = SystemTimeSource
/// The former name of ``ClockTimeSource``.
@available(*, deprecated, renamed: "ClockTimeSource")
public typealias ClockMiddlewareClock = ClockTimeSource

/// The first name of ``TimeSource``.
@available(*, deprecated, renamed: "TimeSource")
public typealias RetryClock = TimeSource
/// The first name of ``SystemTimeSource``.
@available(*, deprecated, renamed: "SystemTimeSource")
public typealias SystemRetryClock = SystemTimeSource
/// The first name of ``ClockTimeSource``.
@available(*, deprecated, renamed: "ClockTimeSource")
public typealias ClockRetryClock = ClockTimeSource
