import Courier
import CourierMacros
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// The base URL of every test service; its `/v1` path is kept.
let baseURL = URL(string: "https://api.example.com/v1")!

/// A `LibraryService` over a fresh stub, with a middleware that records each call's options.
func makeLibrary(verbose: Bool = false) -> (LibraryService, StubTransport, OptionsRecorder) {
    let stub = StubTransport()
    let recorder = OptionsRecorder()
    let client = APIClient(configuration: APIConfiguration(baseURL: baseURL), transport: stub, middleware: [recorder])
    return (LibraryService(client: client), stub, recorder)
}

/// Records the `RequestContext` of every request it sees.
final class OptionsRecorder: Middleware {
    private let contexts = Locked<[RequestContext]>([])

    var last: RequestContext? { contexts.withLock { $0.last } }

    func intercept(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext, next: HTTPHandler) async throws -> (HTTPResponse, HTTPBody?) {
        contexts.withLock { $0.append(context) }
        return try await next(request, body, context)
    }
}

/// Bytes that start like a JPEG / PNG file.
let jpegBytes = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46])
let pngBytes = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00])
