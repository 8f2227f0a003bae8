import CourierTestServer

/// Starts a plain-HTTP ``FaultServer``, runs `body` with it and always stops the server
/// afterwards, also when `body` throws.
func withFaultServer(
    isolation: isolated (any Actor)? = #isolation,
    _ body: (FaultServer) async throws -> Void
) async throws {
    let server = try await FaultServer.start()
    do { try await body(server) } catch { await server.stop(); throw error }
    await server.stop()
}
