import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Service`: the protocol's client, `<Name>Service` (or `<Name>Impl`).
public struct ServiceMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let declaration = declaration.as(ProtocolDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: ServiceDiagnostic.notAProtocol("Service")))
            return []
        }
        var sink = DiagnosticSink()
        let model = ServiceExtractor(macro: "Service", requiresHTTP: true).extract(declaration, into: &sink)
        sink.diagnostics.forEach(context.diagnose)
        guard !sink.hasErrors else { return [] }
        return [ServiceClassFactory(model: model).make()]
    }
}
