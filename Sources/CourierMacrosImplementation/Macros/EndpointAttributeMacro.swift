import SwiftSyntax
import SwiftSyntaxMacros

/// `@GET`, `@POST`… `@QueryParams`, `@Headers`, `@Header`, `@Body`, `@FormURLEncoded`,
/// `@FileUpload`, `@Options`: markers that `@Service` reads. They generate nothing.
public struct EndpointAttributeMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        // On anything but a method (the protocol itself, a property) nothing reads it: refused,
        // rather than a header or an option silently never sent.
        guard declaration.is(FunctionDeclSyntax.self) else {
            throw MacroExpansionErrorMessage("@\(node.attributeName.trimmedDescription) applies to a method of a @Service protocol; here nothing reads it")
        }
        return []
    }
}
