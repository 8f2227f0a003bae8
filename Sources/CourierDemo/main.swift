import Courier
import CourierAsyncHTTPClient
import CourierURLSession
import Foundation
import HTTPTypes

// courier-demo: starts the embedded users API (unless --base-url is given), drives it with a
// Courier client, prints a readable transcript, stops the server and exits 0 when every step
// behaved as expected.

let options: DemoOptions
do {
    guard let parsed = try DemoOptions.parse(Array(CommandLine.arguments.dropFirst())) else {
        print(DemoOptions.help)
        exit(0)
    }
    options = parsed
} catch {
    FileHandle.standardError.write(Data("courier-demo: \(error)\n".utf8))
    exit(2)
}

var server: DemoServer?
let baseURL: URL
if let url = options.baseURL {
    baseURL = url
} else {
    do {
        let started = try await DemoServer.start()
        server = started
        baseURL = started.baseURL
    } catch {
        FileHandle.standardError.write(Data("courier-demo: could not start the embedded server: \(error)\n".utf8))
        exit(1)
    }
}

print("Courier \(CourierInfo.version) demo — API at \(baseURL.absoluteString) (\(server == nil ? "external" : "embedded server")), transport: \(options.transport.rawValue)")

let failures = await DemoScenario(baseURL: baseURL, options: options).run()
await server?.stop()
print(failures == 0 ? "\nAll steps behaved as expected. Server stopped." : "\n\(failures) step(s) did not behave as expected.")
exit(failures == 0 ? 0 : 1)
