import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Mockable`: a recording mock of the protocol, `<Name>ServiceMock` (or `<Name>Mock`).
public struct MockableMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let declaration = declaration.as(ProtocolDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: ServiceDiagnostic.notAProtocol("Mockable")))
            return []
        }
        // With @Service on the same protocol, its expansion reports the misuse; reading the
        // HTTP attributes too keeps the mock's API (`_queryItems:`, `_payloadDescription:`) the same.
        let isService = declaration.attributes.contains { element in
            if case .attribute(let attribute) = element { return EndpointAttributes.name(of: attribute) == "Service" }
            return false
        }
        var sink = DiagnosticSink()
        let model = ServiceExtractor(macro: "Mockable", requiresHTTP: isService).extract(declaration, into: &sink)
        if !isService { sink.diagnostics.forEach(context.diagnose) }
        guard !sink.hasErrors else { return [] }
        return [MockClassFactory(model: model, isService: isService).make()]
    }
}
