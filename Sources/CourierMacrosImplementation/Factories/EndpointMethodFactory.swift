import SwiftSyntax
import SwiftSyntaxBuilder

/// The body of one generated service method: fill an `EndpointDescriptor`, send it.
struct EndpointMethodFactory {
    let endpoint: EndpointModel
    /// `Posts`, for the operation name.
    let serviceName: String

    /// The statements, one per line.
    func statements() -> [String] {
        let path = endpoint.pathExpression?.trimmedDescription ?? "\"/\""
        var lines = [
            "var __endpoint = EndpointDescriptor(method: \(literal(endpoint.httpMethod ?? "GET")), path: \(path), operation: \(literal("\(serviceName).\(endpoint.selector)")))"
        ]
        for (template, parameter) in endpoint.pathBindings {
            lines.append("__endpoint.path(\(literal(template)), \(SwiftName.code(parameter)))")
        }
        if let name = endpoint.bodyParameter {
            let body = SwiftName.code(name)
            switch endpoint.bodyEncoding {
            case .json: lines.append("__endpoint.jsonBody(\(body))")
            case .form: lines.append("__endpoint.formBody(\(body))")
            case .multipart: lines.append("__endpoint.filePart(\(literal(name)), \(body), description: _payloadDescription)")
            }
        }
        for field in endpoint.fieldParameters {
            let call = endpoint.bodyEncoding == .multipart ? "multipartField" : "formField"
            lines.append("__endpoint.\(call)(\(literal(field)), \(SwiftName.code(field)))")
        }
        for (name, parameter) in endpoint.queryBindings {
            lines.append("__endpoint.query(\(literal(name)), \(SwiftName.code(parameter)))")
        }
        lines.append("__endpoint.queryItems(_queryItems)")
        for headers in endpoint.staticHeaders {
            switch headers {
            case .pairs(let pairs):
                for (name, value) in pairs { lines.append("__endpoint.header(\(name.trimmedDescription), \(value.trimmedDescription))") }
            case .dictionary(let expression):
                lines.append("for (name, value) in \(expression.trimmedDescription) { __endpoint.header(name, value) }")
            }
        }
        for (name, parameter) in endpoint.headerBindings {
            lines.append("__endpoint.header(\(name), \(SwiftName.code(parameter)))")
        }
        if let options = endpoint.options {
            lines.append("__endpoint.options(RequestOptions(\(options.trimmedDescription)))")
        }
        lines.append("return try await __endpoint.send(on: self.client)")
        return lines
    }

    /// A string literal of `text`, a name sent on the wire: a parameter written with backticks
    /// (`` `default` ``) is sent under its name (`default`), not with the backticks.
    private func literal(_ text: String) -> String {
        StringLiteralExprSyntax(content: text.filter { $0 != "`" }).trimmedDescription
    }
}
