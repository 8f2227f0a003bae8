import CourierMacrosImplementation
import SwiftCompilerPlugin
import SwiftSyntax
import SwiftSyntaxMacros

/// The compiler plugin behind module CourierMacros.
@main
struct CourierMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        ServiceMacro.self,
        MockableMacro.self,
        EndpointAttributeMacro.self,
    ]
}

// The compiler asks this plugin for `CourierMacrosPlugin.<type>` (the module that
// `#externalMacro` names), and swift-syntax matches on the type's full name: each macro is a
// type of this module that hands the work to its expansion in CourierMacrosImplementation,
// where the expansion tests reach it without naming a `.macro` target.

/// `@Service` (see ``CourierMacrosImplementation/ServiceMacro``).
public struct ServiceMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try CourierMacrosImplementation.ServiceMacro.expansion(of: node, providingPeersOf: declaration, in: context)
    }
}

/// `@Mockable` (see ``CourierMacrosImplementation/MockableMacro``).
public struct MockableMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try CourierMacrosImplementation.MockableMacro.expansion(of: node, providingPeersOf: declaration, in: context)
    }
}

/// `@GET`, `@QueryParams`… (see ``CourierMacrosImplementation/EndpointAttributeMacro``).
public struct EndpointAttributeMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try CourierMacrosImplementation.EndpointAttributeMacro.expansion(of: node, providingPeersOf: declaration, in: context)
    }
}
