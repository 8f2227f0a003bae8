import SwiftDiagnostics
import SwiftSyntax

/// Collects the diagnostics of one expansion.
struct DiagnosticSink {
    private(set) var diagnostics: [Diagnostic] = []

    /// Whether an error (not a warning) was reported: nothing is generated then.
    var hasErrors: Bool { diagnostics.contains { $0.diagMessage.severity == .error } }

    mutating func report(_ message: ServiceDiagnostic, at node: some SyntaxProtocol, fixIts: [FixIt] = []) {
        diagnostics.append(Diagnostic(node: Syntax(node), message: message, fixIts: fixIts))
    }
}
