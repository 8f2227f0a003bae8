/// RFC 3492's Punycode, the encoding half: the ASCII form IDNA gives a label of an
/// internationalised domain name (`bücher` → `xn--bcher-kva`).
///
/// For the Public Suffix List, which writes its internationalised rules in Unicode (`公司.cn`),
/// while the hosts Courier sends to are in their ASCII form (`xn--55qx5d.cn`), as DNS and TLS
/// see them (``CheckedURL`` refuses a host percent-encoded into other characters). The list's
/// labels are already IDNA2008 labels (lowercase, NFC), so encoding them is all the conversion
/// needs; no mapping or normalisation (UTS #46) is done, and none is needed for that use.
/// Written here, not taken from Foundation: Foundation has no public IDNA API on Linux, and the
/// core takes no new dependency.
enum Punycode {
    /// The ASCII form of one label: the label itself when it is ASCII, else `xn--` and its
    /// Punycode; `nil` when the encoding would overflow (RFC 3492 §6.4; no label of a domain
    /// name, at most 63 bytes once encoded, comes near it).
    static func asciiLabel(_ label: Substring) -> String? {
        guard label.utf8.contains(where: { $0 >= 0x80 }) else { return String(label) }
        guard let encoded = encode(label.unicodeScalars.map(\.value)) else { return nil }
        return "xn--" + encoded
    }

    /// The ASCII form of a domain name, label by label (``asciiLabel(_:)``).
    static func asciiDomain(_ domain: String) -> String? {
        var labels: [String] = []
        for label in domain.split(separator: ".", omittingEmptySubsequences: false) {
            guard let ascii = asciiLabel(label) else { return nil }
            labels.append(ascii)
        }
        return labels.joined(separator: ".")
    }

    // RFC 3492 §5: the parameters for IDNA.
    private static let base: UInt32 = 36
    private static let tMin: UInt32 = 1
    private static let tMax: UInt32 = 26
    private static let skew: UInt32 = 38
    private static let damp: UInt32 = 700
    private static let initialBias: UInt32 = 72
    private static let initialN: UInt32 = 0x80

    /// RFC 3492 §6.3: the Punycode of `input` (code points), without the `xn--` prefix, or
    /// `nil` on overflow.
    static func encode(_ input: [UInt32]) -> String? {
        var output: [UInt8] = []
        for codePoint in input where codePoint < 0x80 { output.append(UInt8(codePoint)) }
        let basicCount = output.count
        var handled = basicCount
        if basicCount > 0 { output.append(UInt8(ascii: "-")) }
        var n = initialN
        var delta: UInt32 = 0
        var bias = initialBias
        while handled < input.count {
            // The smallest code point not handled yet.
            var next = UInt32.max
            for codePoint in input where codePoint >= n && codePoint < next { next = codePoint }
            let (step, stepOverflow) = (next - n).multipliedReportingOverflow(by: UInt32(handled + 1))
            let (sum, sumOverflow) = delta.addingReportingOverflow(step)
            guard !stepOverflow, !sumOverflow else { return nil }
            delta = sum
            n = next
            for codePoint in input {
                if codePoint < n {
                    let (increased, overflow) = delta.addingReportingOverflow(1)
                    guard !overflow else { return nil }
                    delta = increased
                }
                guard codePoint == n else { continue }
                // `delta` as a variable-length integer of base-36 digits.
                var q = delta
                var k = base
                while true {
                    let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                    if q < t { break }
                    output.append(digit(t + (q - t) % (base - t)))
                    q = (q - t) / (base - t)
                    k += base
                }
                output.append(digit(q))
                bias = adapt(delta, points: UInt32(handled + 1), isFirst: handled == basicCount)
                delta = 0
                handled += 1
            }
            let (increased, overflow) = delta.addingReportingOverflow(1)
            guard !overflow else { return nil }
            delta = increased
            n += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// RFC 3492 §6.1: the bias adaptation.
    private static func adapt(_ delta: UInt32, points: UInt32, isFirst: Bool) -> UInt32 {
        var delta = isFirst ? delta / damp : delta / 2
        delta += delta / points
        var k: UInt32 = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }

    /// A base-36 digit: `a`–`z` for 0–25, `0`–`9` for 26–35.
    private static func digit(_ value: UInt32) -> UInt8 {
        value < 26 ? UInt8(ascii: "a") + UInt8(value) : UInt8(ascii: "0") + UInt8(value - 26)
    }
}
