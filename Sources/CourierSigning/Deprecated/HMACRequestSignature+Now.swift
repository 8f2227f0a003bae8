import Courier
public import Foundation

/// A `TimeSource` made of a closure: what the former `now:` parameter of
/// ``HMACRequestSignature`` gave.
struct ClosureTimeSource: TimeSource {
    let read: @Sendable () -> Date
    func now() -> Date { read() }
    func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
}

extension HMACRequestSignature {
    /// The former way to give the timestamp's time: a closure.
    @available(*, deprecated, message: "pass a TimeSource as `clock:` (a ManualClock in tests)")
    public init(secret: Data, keyID: String? = nil, signatureHeader: String = "X-Signature", timestampHeader: String? = "X-Timestamp",
                keyIDHeader: String = "X-Key-Id", signedHeaders: [String] = ["content-type"], now: @escaping @Sendable () -> Date) {
        self.init(secret: secret, keyID: keyID, signatureHeader: signatureHeader, timestampHeader: timestampHeader,
                  keyIDHeader: keyIDHeader, signedHeaders: signedHeaders, clock: ClosureTimeSource(read: now))
    }

    /// The former closure for the timestamp's time: reads ``clock``, and setting it replaces it.
    @available(*, deprecated, message: "use `clock`")
    public var now: @Sendable () -> Date {
        get { { [clock] in clock.now() } }
        set { clock = ClosureTimeSource(read: newValue) }
    }
}
