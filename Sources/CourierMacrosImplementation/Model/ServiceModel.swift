import SwiftSyntax

/// A `@Service` / `@Mockable` protocol, as the factories need it.
struct ServiceModel {
    /// The protocol's name.
    var name: String
    /// `public`, `package`… copied to the generated types (nil: internal).
    var accessModifier: String?
    /// The requirements, in declaration order.
    var endpoints: [EndpointModel]

    /// `<Name>Service`, or `<Name>Impl` when the name already ends in `Service`.
    var serviceTypeName: String { name.hasSuffix("Service") ? name + "Impl" : name + "Service" }
    /// `<Name>ServiceMock`, or `<Name>Mock` when the name already ends in `Service`.
    var mockTypeName: String { name.hasSuffix("Service") ? name + "Mock" : name + "ServiceMock" }
}

/// One protocol requirement: its signature and where each parameter goes.
struct EndpointModel {
    /// The declaration, as written.
    var declaration: FunctionDeclSyntax
    /// The base name (`post`).
    var name: String
    var parameters: [ParameterModel]
    /// The return type, nil for `Void`.
    var returnType: TypeSyntax?
    /// `"GET"`, `"POST"`…; nil for a mock-only protocol.
    var httpMethod: String?
    /// The path literal as written (re-emitted verbatim).
    var pathExpression: ExprSyntax?
    /// Static headers, one entry per `@Headers`: name and value expressions, or a dictionary expression.
    var staticHeaders: [StaticHeaders]
    var bodyEncoding: BodyEncoding
    /// The arguments of `@Options(...)`, passed to `RequestOptions(...)`.
    var options: LabeledExprListSyntax?
    /// `{template}` → parameter, in template order.
    var pathBindings: [(template: String, parameter: String)] = []
    /// Query item name → parameter, in `@QueryParams` order.
    var queryBindings: [(name: String, parameter: String)] = []
    /// Header name → parameter, in attribute order.
    var headerBindings: [(name: String, parameter: String)] = []
    /// The body parameter, if any.
    var bodyParameter: String?
    /// Parameters sent as form or multipart fields.
    var fieldParameters: [String] = []

    /// `post(id:author:)`.
    var selector: String {
        // As `#function` spells it: without backticks (`save(default:)`).
        (name + "(" + parameters.map { ($0.label ?? "_") + ":" }.joined() + ")").filter { $0 != "`" }
    }

    /// Whether the generated method takes `_payloadDescription:`.
    var takesPayloadDescription: Bool { bodyEncoding == .multipart }
}

enum StaticHeaders {
    case pairs([(name: ExprSyntax, value: ExprSyntax)])
    case dictionary(ExprSyntax)
}

/// How the body is encoded.
enum BodyEncoding: Equatable {
    /// JSON for `Encodable`, bytes for `Data`, as given for `RequestBody`.
    case json
    /// `@FormURLEncoded`.
    case form
    /// `@FileUpload`.
    case multipart
}

/// One parameter of a requirement.
struct ParameterModel {
    /// The argument label; nil for `_`.
    var label: String?
    /// The name used inside the method.
    var name: String
    /// The type as written (`Int`, `String?`, `Data`).
    var type: TypeSyntax
    /// Where its value goes.
    var binding: Binding

    enum Binding: Equatable {
        case path(String)
        case query(String)
        case header(String)
        case body
        /// A form or multipart field, named after the parameter.
        case field
        /// Sent nowhere (a warning for `@Service`; every parameter of a mock-only protocol).
        case unbound
    }
}
