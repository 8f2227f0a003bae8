import SwiftSyntax
import SwiftSyntaxMacros

/// `@GET`, `@POST`… `@QueryParams`, `@Headers`, `@Header`, `@Body`, `@FormURLEncoded`,
/// `@FileUpload`, `@Options`: markers that `@Service` reads. They generate nothing.
public struct EndpointAttributeMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}
