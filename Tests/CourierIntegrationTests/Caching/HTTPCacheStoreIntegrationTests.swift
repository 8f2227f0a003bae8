import Courier
import CourierTestServer
import Foundation
import HTTPTypes
import Testing

/// The disk store and the background revalidation against a real server, over both transports.
@Suite("HTTP cache stores and revalidation against a real server")
struct HTTPCacheStoreIntegrationTests {
    typealias Fixture = HTTPCacheIntegrationTests.Fixture

    private func withFixture(_ kind: TransportKind, _ name: String = #function, _ body: (Fixture) async throws -> Void) async throws {
        try await withTestServer { (server: TestServer) async throws in
            try await body(Fixture(server: server, kind: kind, key: "\(kind.rawValue)-\(name)"))
        }
    }

    private func withDirectory(_ body: (URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory)
    }

    @Test("a disk store serves a second client (a new process's view) from the same directory", arguments: TransportKind.allCases)
    func diskStoreAcrossClients(_ kind: TransportKind) async throws {
        try await withFixture(kind) { fixture in
            try await withDirectory { directory in
                let first = fixture.client([fixture.cache(DiskCacheStore(directory: directory))])
                _ = try await first.send(fixture.resource(["cc": "max-age=600"]))
                let second = fixture.client([fixture.cache(DiskCacheStore(directory: directory))])
                let response = try await second.response(for: fixture.resource(["cc": "max-age=600"]))
                #expect(response.metrics.cacheOutcome == .hit)
                #expect(response.value.n == "1")
                // Another namespace on the same directory does not see it.
                let tenant = fixture.client([fixture.cache(DiskCacheStore(directory: directory), namespace: "tenant-2")])
                #expect(try await tenant.response(for: fixture.resource(["cc": "max-age=600"])).metrics.cacheOutcome == .miss)
                #expect(try await fixture.stats().full == 2)
            }
        }
    }

    @Test("a truncated entry on disk is a miss, never an error; the response is fetched and stored again", arguments: TransportKind.allCases)
    func truncatedEntry(_ kind: TransportKind) async throws {
        try await withFixture(kind) { fixture in
            try await withDirectory { directory in
                let client = fixture.client([fixture.cache(DiskCacheStore(directory: directory))])
                _ = try await client.send(fixture.resource(["cc": "max-age=600", "size": "4000"]))
                let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
                    .filter { !$0.lastPathComponent.hasPrefix(".") }
                #expect(files.count == 1)
                for file in files {
                    let data = try Data(contentsOf: file)
                    try data.prefix(data.count / 2).write(to: file)
                }
                let again = try await client.response(for: fixture.resource(["cc": "max-age=600", "size": "4000"]))
                #expect(again.metrics.cacheOutcome == .miss)
                #expect(try await client.response(for: fixture.resource(["cc": "max-age=600", "size": "4000"])).metrics.cacheOutcome == .hit)
                #expect(try await fixture.stats().full == 2)
            }
        }
    }

    @Test("two clients writing one directory at once leave every entry readable", arguments: TransportKind.allCases)
    func sharedDirectoryUnderLoad(_ kind: TransportKind) async throws {
        try await withFixture(kind) { fixture in
            try await withDirectory { directory in
                let clients = [fixture.client([fixture.cache(DiskCacheStore(directory: directory))]),
                               fixture.client([fixture.cache(DiskCacheStore(directory: directory))])]
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<40 {
                        let client = clients[index % 2]
                        let request = fixture.resource(["cc": "max-age=600", "size": "2000"], key: "\(fixture.key)-\(index % 10)")
                        group.addTask { _ = try await client.send(request) }
                    }
                    try await group.waitForAll()
                }
                let reader = DiskCacheStore(directory: directory)
                let keys = Locked<[HTTPCacheKey]>([])
                await reader.removeEntries { key in keys.withLock { $0.append(key) }; return false }
                #expect(keys.current.count == 10)
                for key in keys.current { #expect(await reader.entry(for: key) != nil) }
            }
        }
    }

    @Test("stale-while-revalidate: the stale response is served at once and the store is refreshed in the background", arguments: TransportKind.allCases)
    func staleWhileRevalidate(_ kind: TransportKind) async throws {
        try await withFixture(kind) { fixture in
            let client = fixture.client([fixture.cache(stale: .whileRevalidating)])
            let parameters = ["cc": "max-age=10, stale-while-revalidate=600"]
            _ = try await client.send(fixture.resource(parameters))
            fixture.clock.advance(by: 30)
            let stale = try await client.response(for: fixture.resource(parameters))
            #expect(stale.metrics.cacheOutcome == .stale)
            #expect(stale.value.n == "1")
            var refreshed = stale.value
            for _ in 0..<400 where refreshed.n == "1" {
                try await Task.sleep(for: .milliseconds(25))
                refreshed = try await client.send(fixture.resource(parameters))
            }
            #expect(refreshed.n == "2")
            #expect(try await fixture.stats().full == 2)
        }
    }
}
