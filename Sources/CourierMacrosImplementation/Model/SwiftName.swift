/// How generated code writes a parameter's name.
enum SwiftName {
    /// The words Swift reads as keywords wherever they stand (and `await`, which an expression
    /// always reads as one), so a parameter named after one — `search(for: String)`,
    /// `` `default` `` — is written with backticks in code. swift-syntax has the list
    /// (`Keyword.isLexerClassified`) only behind an SPI.
    static let reservedWords: Set<String> = [
        "Any", "as", "associatedtype", "await", "break", "case", "catch", "class", "continue", "default",
        "defer", "deinit", "do", "else", "enum", "extension", "fallthrough", "false", "fileprivate", "for",
        "func", "guard", "if", "import", "in", "init", "inout", "internal", "is", "let", "nil", "operator",
        "precedencegroup", "private", "protocol", "public", "repeat", "rethrows", "return", "self", "Self",
        "static", "struct", "subscript", "super", "switch", "throw", "throws", "true", "try", "typealias",
        "var", "where", "while",
    ]

    /// `name` as code: `` `for` `` for a reserved word, the name itself otherwise.
    static func code(_ name: String) -> String {
        reservedWords.contains(name) ? "`\(name)`" : name
    }

    /// `name` as an argument label at a call site: `search(for: x, default: y)`. A label may be
    /// any keyword but `inout`, `var` and `let` without backticks, and Swift warns about
    /// needless ones ("keyword 'default' does not need to be escaped in argument list") — in
    /// the user's build, at the line of their `@Service`. A label written with backticks in
    /// the protocol comes without them.
    static func label(_ name: String) -> String {
        var bare = Substring(name)
        if bare.count > 2, bare.first == "`", bare.last == "`" { bare = bare.dropFirst().dropLast() }
        return ["inout", "var", "let"].contains(bare) ? "`\(bare)`" : String(bare)
    }
}
