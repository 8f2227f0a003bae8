@testable import Courier
import Foundation
import HTTPTypes
import Testing

/// A key's text is hashed into a disk entry's file name, and keys are compared in every store:
/// two different keys must never have one text, and equal must mean the same bytes — `String`'s
/// `==` takes canonically equivalent text (`"é"` and `"e\u{301}"`) as equal.
@Suite("HTTPCacheKey: text and equality")
struct HTTPCacheKeyTests: DiskCacheTestBed {
    static func key(namespace: String = "n", method: String = "GET", url: String = "https://api.example.com/v1/items",
                    credentials: String? = nil) -> HTTPCacheKey {
        HTTPCacheKey(namespace: namespace, method: method, url: url, credentials: credentials)
    }

    /// Pairs of keys that had one text before the text gave each component's length.
    static let collidingBefore: [(HTTPCacheKey, HTTPCacheKey)] = [
        // A newline in the namespace was written as a backslash and an `n`.
        (key(namespace: "a\nb"), key(namespace: "a\\nb")),
        // No fingerprint was written `-`, as the fingerprint `-` was.
        (key(credentials: nil), key(credentials: "-")),
        // A newline in another component was taken for a separator.
        (key(method: "GET\nhttps://api.example.com/x", url: "y"), key(method: "GET", url: "https://api.example.com/x\ny")),
    ]

    @Test("the text gives each component's length in UTF-8 bytes before it")
    func textFormat() {
        #expect(Self.key(namespace: "\u{E9}", url: "u", credentials: "c0ffee").text == "2:\u{E9}\n3:GET\n1:u\n6:c0ffee")
        #expect(Self.key(namespace: "", url: "u").text == "0:\n3:GET\n1:u\n-")
    }

    @Test("components that differ only by a newline and a backslash-n, or by a newline and a separator, give different keys and texts")
    func textIsInjective() {
        for (first, second) in Self.collidingBefore {
            #expect(first != second)
            #expect(first.text != second.text, "\(first) and \(second)")
            #expect(DiskCacheDirectory.fileName(for: first) != DiskCacheDirectory.fileName(for: second))
        }
    }

    @Test("keys that had one text before are kept apart by a MemoryCacheStore and a DiskCacheStore")
    func storesKeepThemApart() async throws {
        try await withDirectory { directory in
            for store: any HTTPCacheStore in [MemoryCacheStore(), DiskCacheStore(directory: directory)] {
                for (first, second) in Self.collidingBefore {
                    await store.store(Self.entry(first, fill: 0x31))
                    await store.store(Self.entry(second, fill: 0x32))
                    #expect(await store.entry(for: first)?.body.first == 0x31, "\(type(of: store)): \(first)")
                    #expect(await store.entry(for: second)?.body.first == 0x32, "\(type(of: store)): \(second)")
                }
            }
        }
    }

    @Test("namespaces \"é\" (U+00E9) and \"e\\u{301}\" are two namespaces: different keys, texts and entries; purging one leaves the other")
    func namespacesCompareByBytes() async throws {
        let precomposed = Self.key(namespace: "\u{E9}"), decomposed = Self.key(namespace: "e\u{301}")
        #expect("\u{E9}" == "e\u{301}", "String's == takes them as equal")
        #expect(precomposed != decomposed)
        #expect(Set([precomposed, decomposed]).count == 2)
        #expect(precomposed.text != decomposed.text)
        #expect(precomposed == Self.key(namespace: "\u{E9}"))
        #expect(precomposed.hashValue == Self.key(namespace: "\u{E9}").hashValue)
        try await withDirectory { directory in
            for store: any HTTPCacheStore in [MemoryCacheStore(), DiskCacheStore(directory: directory)] {
                await store.store(Self.entry(precomposed, fill: 0x31))
                await store.store(Self.entry(decomposed, fill: 0x32))
                #expect(await store.entry(for: precomposed)?.body.first == 0x31, "\(type(of: store))")
                #expect(await store.entry(for: decomposed)?.body.first == 0x32, "\(type(of: store))")
                await store.removeEntries(inNamespace: "e\u{301}")
                #expect(await store.entry(for: precomposed) != nil, "\(type(of: store)): purging one namespace removed the other's")
                #expect(await store.entry(for: decomposed) == nil, "\(type(of: store))")
            }
        }
    }

    @Test("equal keys are equal, hash alike and have one text, whatever their storage")
    func equalKeys() {
        let url = "https://api.example.com/v1/items?q=\u{E9}t\u{E9}"
        let a = Self.key(url: url, credentials: "abc")
        let b = Self.key(url: String(decoding: Array(url.utf8), as: UTF8.self), credentials: String("xabc".dropFirst()))
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a.text == b.text)
        #expect(a != Self.key(url: url, credentials: nil))
        #expect(a != Self.key(url: url, credentials: "abd"))
    }
}
