import SwiftSyntax

/// The pieces of a generated method's signature, shared by the service and the mock.
struct SignatureFactory {
    let endpoint: EndpointModel
    /// Whether the method gets the `_queryItems:` (and `_payloadDescription:`) overload.
    let addsExtras: Bool

    /// `(id: Int, author: String)`.
    var declaredParameters: [String] {
        endpoint.declaration.signature.parameterClause.parameters.map {
            $0.with(\.trailingComma, nil).trimmedDescription
        }
    }

    /// `_queryItems: [URLQueryItem] = []`, and `_payloadDescription:` for uploads.
    var extraParameters: [String] {
        guard addsExtras else { return [] }
        var extras = ["_queryItems: [URLQueryItem] = []"]
        if endpoint.takesPayloadDescription { extras.append("_payloadDescription: PayloadDescription? = nil") }
        return extras
    }

    /// ` async throws -> Post`.
    var effectsAndReturn: String {
        let signature = endpoint.declaration.signature
        var text = ""
        if let effects = signature.effectSpecifiers { text += " " + effects.trimmedDescription }
        if let returnClause = signature.returnClause { text += " " + returnClause.trimmedDescription }
        return text
    }

    /// `func post(id: Int, author: String) async throws -> Post` — the protocol's requirement.
    func witnessSignature(access: String) -> String {
        "\(access)func \(endpoint.declaration.name.text)(\(declaredParameters.joined(separator: ", ")))\(effectsAndReturn)"
    }

    /// The same with the extra parameters.
    func fullSignature(access: String) -> String {
        let parameters = declaredParameters + extraParameters
        return "\(access)func \(endpoint.declaration.name.text)(\(parameters.joined(separator: ", ")))\(effectsAndReturn)"
    }

    /// `try await post(id: id, author: author, _queryItems: [])`.
    var forwardingCall: String {
        var arguments = endpoint.parameters.map { parameter in
            parameter.label.map { "\(SwiftName.label($0)): \(SwiftName.code(parameter.name))" } ?? SwiftName.code(parameter.name)
        }
        arguments.append("_queryItems: []")
        if endpoint.takesPayloadDescription { arguments.append("_payloadDescription: nil") }
        return "try await \(endpoint.declaration.name.text)(\(arguments.joined(separator: ", ")))"
    }

    /// `public ` for public protocols, nothing for internal and private ones.
    static func memberAccess(_ modifier: String?) -> String {
        switch modifier {
        case "public", "package": "\(modifier!) "
        default: ""
        }
    }

    /// The modifier of the generated type itself.
    static func typeAccess(_ modifier: String?) -> String {
        switch modifier {
        case .some(let modifier) where modifier != "internal": "\(modifier) "
        default: ""
        }
    }
}
