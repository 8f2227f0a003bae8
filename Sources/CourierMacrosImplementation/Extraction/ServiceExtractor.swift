import SwiftSyntax

/// Reads a protocol into a ``ServiceModel``.
struct ServiceExtractor {
    /// `Service` or `Mockable`, for messages.
    var macro: String
    /// Whether every requirement needs an HTTP method (`@Service`) or not (`@Mockable` alone).
    var requiresHTTP: Bool

    func extract(_ declaration: ProtocolDeclSyntax, into sink: inout DiagnosticSink) -> ServiceModel {
        let access = declaration.modifiers.lazy.map(\.name.text)
            .first { ["public", "package", "internal", "fileprivate", "private"].contains($0) }
        var endpoints: [EndpointModel] = []
        let extractor = EndpointExtractor(requiresHTTP: requiresHTTP)
        for member in declaration.memberBlock.members {
            if let function = member.decl.as(FunctionDeclSyntax.self) {
                endpoints.append(extractor.extract(function, into: &sink))
            } else {
                sink.report(.unsupportedMember(macro), at: member.decl)
            }
        }
        return ServiceModel(name: declaration.name.text, accessModifier: access, endpoints: endpoints)
    }
}
