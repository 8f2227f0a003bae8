import Courier
import Foundation

/// Prints the demo's transcript: each step, its request, the status, the time and the result.
struct DemoTranscript {
    private(set) var failures = 0

    func title(_ text: String) {
        print("\n\u{25B6} \(text)")
    }

    func note(_ text: String) {
        print("  \(text)")
    }

    /// Runs one step and prints what happened; returns the value, or `nil` after printing the error.
    @discardableResult
    mutating func step<R: APIRequest>(
        _ title: String, _ request: R, on client: APIClient, expectFailure: Bool = false,
        describe: (R.Response) -> String
    ) async -> R.Response? {
        print("\n\u{25B6} \(title)")
        if let (head, _) = try? client.prepare(request) {
            print("  \u{2192} \(head.method) \(head.path ?? "/")")
        }
        do {
            let response = try await client.response(for: request)
            let ms = response.metrics.duration.secondsValue * 1000
            print("  \u{2190} \(response.statusCode) in \(String(format: "%.1f", ms)) ms, \(response.body.count) bytes")
            print("  \(describe(response.value))")
            if expectFailure { failures += 1; print("  ✗ expected this step to fail") }
            return response.value
        } catch {
            print("  \u{2190} \(error)")
            if !expectFailure { failures += 1 } else { print("  ✓ failed as expected") }
            return nil
        }
    }
}
