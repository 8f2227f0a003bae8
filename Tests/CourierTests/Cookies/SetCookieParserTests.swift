@testable import Courier
import Foundation
import Testing

@Suite("Set-Cookie parsing (RFC 6265 §5.2)")
struct SetCookieParserTests {
    @Test("name, value and every attribute, case-insensitively, whitespace trimmed")
    func fullHeader() throws {
        let cookie = try #require(SetCookieParser.parse(" sid = a b ; Path=/api ;DOMAIN=.Example.COM; secure; HTTPONLY; SameSite=lax; Max-Age=60; Expires=Wed, 21 Oct 2015 07:28:00 GMT"))
        #expect(cookie.name == "sid")
        #expect(cookie.value == "a b")
        #expect(cookie.path == "/api")
        #expect(cookie.domain == "example.com")
        #expect(cookie.isSecure && cookie.isHTTPOnly)
        #expect(cookie.sameSite == .lax)
        #expect(cookie.maxAge == 60)
        #expect(cookie.expires == Date(timeIntervalSince1970: 1_445_412_480))
    }

    @Test("the whole header is ignored without '=' or with an empty name", arguments: ["novalue", "", "=value", " =x; Path=/", ";a=b"])
    func ignoredHeaders(_ header: String) {
        #expect(SetCookieParser.parse(header) == nil)
    }

    @Test("an empty value and a quoted value are kept as sent")
    func valuesAsSent() throws {
        #expect(try #require(SetCookieParser.parse("a=")).value == "")
        #expect(try #require(SetCookieParser.parse("a=\"quoted\"; Path=/")).value == "\"quoted\"")
        #expect(try #require(SetCookieParser.parse("a=b=c")).value == "b=c")
    }

    @Test("malformed attributes are ignored, the cookie kept")
    func malformedAttributes() throws {
        let cookie = try #require(SetCookieParser.parse("a=1; Max-Age=12abc; Max-Age=; Expires=not a date; Path=relative; Domain=; SameSite=Sometimes; =x; ;;; Unknown=1"))
        #expect(cookie.maxAge == nil)
        #expect(cookie.expires == nil)
        #expect(cookie.path == nil)      // default path
        #expect(cookie.domain == nil)
        #expect(cookie.sameSite == nil)
    }

    @Test("the last occurrence of an attribute wins")
    func lastWins() throws {
        let cookie = try #require(SetCookieParser.parse("a=1; Path=/one; Path=/two; Max-Age=5; Max-Age=7; Domain=a.example; Domain=b.example"))
        #expect(cookie.path == "/two")
        #expect(cookie.maxAge == 7)
        #expect(cookie.domain == "b.example")
    }

    @Test("Max-Age: negative, zero, and values past Int64 saturate instead of overflowing")
    func maxAgeExtremes() throws {
        #expect(try #require(SetCookieParser.parse("a=1; Max-Age=-5")).maxAge == -5)
        #expect(try #require(SetCookieParser.parse("a=1; Max-Age=0")).maxAge == 0)
        #expect(try #require(SetCookieParser.parse("a=1; Max-Age=99999999999999999999999999999")).maxAge == .max)
        #expect(try #require(SetCookieParser.parse("a=1; Max-Age=-99999999999999999999999999999")).maxAge == -.max)
        #expect(try #require(SetCookieParser.parse("a=1; Max-Age=+5")).maxAge == nil)
        #expect(try #require(SetCookieParser.parse("a=1; Max-Age=-")).maxAge == nil)
    }

    @Test("control characters in the name or value make the header ignored; a tab is allowed")
    func controlCharacters() {
        #expect(SetCookieParser.parse("a=b\u{0}c") == nil)
        #expect(SetCookieParser.parse("a\u{7F}=b") == nil)
        #expect(SetCookieParser.parse("a=b\rc") == nil)
        #expect(SetCookieParser.parse("a=b\tc")?.value == "b\tc")
    }

    @Test("size limits: a name and value over 4,096 bytes is ignored; an attribute value over 1,024 bytes is dropped")
    func sizeLimits() throws {
        #expect(SetCookieParser.parse("a=" + String(repeating: "x", count: 4095)) != nil)   // 4,096 bytes
        #expect(SetCookieParser.parse("a=" + String(repeating: "x", count: 4096)) == nil)
        #expect(SetCookieParser.parse(String(repeating: "n", count: 1_000_000) + "=1") == nil)
        let cookie = try #require(SetCookieParser.parse("a=1; Path=/" + String(repeating: "p", count: 1024)))
        #expect(cookie.path == nil)
        // A megabyte of attribute names is skipped without being lowercased or stored.
        let hostile = try #require(SetCookieParser.parse("a=1; " + String(repeating: "X", count: 1_000_000) + "=1; Secure"))
        #expect(hostile.isSecure)
    }

    @Test("Set-Cookie fields folded into one with commas (as URLSession delivers them) are split again; commas in dates are not split points")
    func foldedFields() {
        let folded = "sid=abc; Path=/; HttpOnly, pref=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Path=/x,theme=dark, odd=a,b"
        #expect(SetCookieParser.splitFolded(folded) == [
            "sid=abc; Path=/; HttpOnly", "pref=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Path=/x", "theme=dark", "odd=a,b",
        ])
        #expect(SetCookieParser.splitFolded("a=1") == ["a=1"])
        #expect(SetCookieParser.splitFolded(String(repeating: ",", count: 10_000)).count == 1)
    }

    @Test("the jar takes each Set-Cookie field as one cookie: a comma in a value never plants a second cookie (only URLSession's folded fields are split, by its transport)")
    func jarDoesNotSplitAField() throws {
        let jar = CookieJar()
        jar.setCookie("theme=dark,sid=attacker; Path=/; Secure; HttpOnly", for: URL(string: "https://example.com/")!)
        let cookie = try #require(jar.cookies.first)
        #expect(jar.cookies.count == 1)
        #expect(cookie.name == "theme" && cookie.value == "dark,sid=attacker")
        #expect(cookie.isSecure)
    }

    @Test("non-ASCII values are kept (browsers accept UTF-8)")
    func unicode() {
        #expect(SetCookieParser.parse("name=é✓")?.value == "é✓")
    }
}
