/// One way of making one request, measured by the harness.
///
/// A scenario's ``perform`` sends a single request and checks its answer; the harness calls it
/// many times, sequentially or with many in flight.
struct Scenario: Sendable {
    /// A stable key, e.g. `ahc.raw`, used in the JSON output.
    let key: String
    /// A human label for the table.
    let label: String
    /// The family it belongs to (`ahc`, `urlsession`, `middleware`, `defaults`, `cache`), for `--only`.
    let family: String
    /// Sends one request and decodes its response.
    let perform: @Sendable () async throws -> Void
}

/// A ratio the benchmark reports: a scenario measured against its baseline in the same rounds.
struct Pair: Sendable {
    /// The JSON key prefix, e.g. `ahc` (giving `ahc.sequential.cpu`).
    let key: String
    /// The scenario being judged (Courier).
    let subject: String
    /// What it is divided by (raw transport, or Courier without middleware).
    let baseline: String
    /// The most the CPU ratio may be.
    let cpuTarget: Double
    /// The least the requests/s ratio may be (`nil`: no target).
    let rpsTarget: Double?
    /// Whether both sides run with their defaults (`false`: the raw side is given Courier's
    /// configuration, so the pair measures Courier's own work).
    var isDefaultVersusDefault = false
    /// Whether the pair measures the HTTP cache (Courier with a cache against Courier without):
    /// reported in a table of its own.
    var isCache = false
}
