import SwiftParser
import SwiftSyntax

/// The Courier attributes on one protocol requirement, read but not yet checked.
struct EndpointAttributes {
    static let methodAttributes: Set<String> = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]
    static let knownMethods: Set<String> = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "CONNECT", "QUERY"]

    /// An HTTP method attribute: the method, the node to point at, and the path expression.
    struct Method {
        var attribute: AttributeSyntax
        var method: String
        /// The method argument of `@HTTP(method:path:)`, for diagnostics and fix-its.
        var methodExpression: StringLiteralExprSyntax?
        var path: ExprSyntax?
    }

    /// One `@QueryParams`: a list of parameter names, or parameters mapped to the names sent.
    struct QueryParams {
        var attribute: AttributeSyntax
        /// `["author", "page"]`: each parameter sent under its own name.
        var array: ArrayExprSyntax?
        /// `["perPage": "per_page"]`: each parameter (key) sent under its wire name (value).
        var dictionary: DictionaryExprSyntax?
    }

    var methods: [Method] = []
    var queryParams: [QueryParams] = []
    var headers: [ExprSyntax] = []
    var header: [(attribute: AttributeSyntax, name: ExprSyntax, parameter: String?)] = []
    var bodies: [(attribute: AttributeSyntax, parameter: String?)] = []
    var formURLEncoded: AttributeSyntax?
    var fileUpload: AttributeSyntax?
    var options: LabeledExprListSyntax?
    /// Every `@Options` after the first: refused (the first would be silently replaced).
    var extraOptions: [AttributeSyntax] = []

    init(_ attributes: AttributeListSyntax) {
        for element in attributes {
            guard case .attribute(let attribute) = element else { continue }
            let arguments = attribute.arguments?.as(LabeledExprListSyntax.self) ?? []
            switch Self.name(of: attribute) {
            case let name where Self.methodAttributes.contains(name):
                methods.append(Method(attribute: attribute, method: name, path: arguments.first?.expression))
            case "HTTP":
                let method = arguments.first { $0.label?.text == "method" }?.expression.as(StringLiteralExprSyntax.self)
                let path = arguments.first { $0.label?.text == "path" }?.expression
                methods.append(Method(attribute: attribute, method: method?.representedLiteralValue ?? "",
                                      methodExpression: method, path: path))
            case "QueryParams":
                let expression = arguments.first?.expression
                queryParams.append(QueryParams(attribute: attribute, array: expression?.as(ArrayExprSyntax.self),
                                               dictionary: expression?.as(DictionaryExprSyntax.self)))
            case "Headers":
                if let expression = arguments.first?.expression { headers.append(expression) }
            case "Header":
                let list = Array(arguments)
                if list.count == 2 {
                    header.append((attribute, list[0].expression, Self.string(list[1].expression)))
                }
            case "Body":
                bodies.append((attribute, arguments.first.flatMap { Self.string($0.expression) }))
            case "FormURLEncoded":
                formURLEncoded = attribute
            case "FileUpload":
                fileUpload = attribute
            case "Options":
                if options == nil { options = arguments } else { extraOptions.append(attribute) }
            default:
                break
            }
        }
    }

    /// `GET` for `@GET` and `@CourierMacros.GET`.
    static func name(of attribute: AttributeSyntax) -> String {
        let name = attribute.attributeName.trimmedDescription
        if let dot = name.lastIndex(of: ".") { return String(name[name.index(after: dot)...]) }
        return name
    }

    /// The first `@QueryParams` written as a list of names, for the "send it as a query item" fix-it.
    var firstQueryArray: ArrayExprSyntax? {
        queryParams.lazy.compactMap(\.array).first
    }

    /// The value of a plain string literal.
    static func string(_ expression: ExprSyntax) -> String? {
        expression.as(StringLiteralExprSyntax.self)?.representedLiteralValue
    }
}
