import SwiftCompilerPlugin
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
