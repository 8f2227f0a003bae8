import SwiftDiagnostics

/// Every message the macros can emit.
struct ServiceDiagnostic: DiagnosticMessage, Error {
    let message: String
    let id: String
    let severity: DiagnosticSeverity

    var diagnosticID: MessageID { MessageID(domain: "CourierMacros", id: id) }

    private init(_ id: String, _ message: String, severity: DiagnosticSeverity = .error) {
        self.id = id
        self.message = message
        self.severity = severity
    }

    static func notAProtocol(_ macro: String) -> Self {
        .init("notAProtocol", "@\(macro) can only be attached to a protocol")
    }
    static func unsupportedMember(_ macro: String) -> Self {
        .init("unsupportedMember", "@\(macro) protocols may only declare methods; declare this in an extension instead")
    }
    static func missingHTTPMethod(_ name: String) -> Self {
        .init("missingHTTPMethod", "'\(name)' has no HTTP method; add @GET, @POST, @PUT, @PATCH, @DELETE, @HEAD or @HTTP(method:path:)")
    }
    static func twoHTTPMethods(_ name: String) -> Self {
        .init("twoHTTPMethods", "'\(name)' has more than one HTTP method attribute")
    }
    static func twoOptions(_ name: String) -> Self {
        .init("twoOptions", "'\(name)' has more than one @Options; put all the options in one (a second one would replace the first)")
    }
    static func unknownHTTPMethod(_ method: String) -> Self {
        .init("unknownHTTPMethod", "unknown HTTP method '\(method)'; use GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS, TRACE, CONNECT or QUERY")
    }
    static func pathNotLiteral() -> Self {
        .init("pathNotLiteral", "the path must be a string literal without interpolation")
    }
    static func notLiteral(_ attribute: String) -> Self {
        .init("notLiteral", "@\(attribute) takes string literals naming the method's parameters")
    }
    static func malformedTemplate(_ reason: String) -> Self {
        .init("malformedTemplate", "malformed path template: \(reason)")
    }
    static func unknownPathParameter(_ name: String) -> Self {
        .init("unknownPathParameter", "path template '{\(name)}' has no parameter named '\(name)'")
    }
    static func unknownParameter(_ name: String, in attribute: String) -> Self {
        .init("unknownParameter", "@\(attribute) names '\(name)', which is not a parameter of this method")
    }
    static func reversedMapping(_ key: String, _ value: String) -> Self {
        .init("reversedMapping", "'\(key)' is not a parameter of this method, but '\(value)' is: in @QueryParams the parameter comes first, then the name sent")
    }
    static func wireNameNotLiteral(_ parameter: String, kind: WireNames.Kind) -> Self {
        .init("wireNameNotLiteral", "the \(kind.nameNoun) of '\(parameter)' must be a string literal")
    }
    static func invalidWireName(_ name: String, for parameter: String, _ problem: WireNames.Problem, kind: WireNames.Kind) -> Self {
        switch problem {
        case .empty:
            .init("invalidWireName", "the \(kind.nameNoun) of '\(parameter)' is empty")
        case .character(let character):
            .init("invalidWireName", "'\(name)' is not a valid \(kind.nameNoun): \(character) is not allowed; use ASCII letters, digits and \(kind.punctuation)")
        }
    }
    static func sharedWireName(_ name: String, _ first: String, _ second: String, kind: WireNames.Kind) -> Self {
        .init("sharedWireName", "'\(first)' and '\(second)' are both sent as the \(kind.noun) '\(name)'; give each parameter its own name")
    }
    static func boundTwice(_ name: String, first: String) -> Self {
        .init("boundTwice", "parameter '\(name)' is bound twice: it is already sent \(first)")
    }
    static func twoBodies(_ first: String, _ second: String) -> Self {
        .init("twoBodies", "a request has one body, but both '\(first)' and '\(second)' are bodies")
    }
    static func bodyNotAllowed(_ method: String) -> Self {
        .init("bodyNotAllowed", "a \(method) request cannot have a body")
    }
    static func formAndMultipart() -> Self {
        .init("formAndMultipart", "@FormURLEncoded and @FileUpload cannot be combined: a request has one body")
    }
    static func fileUploadWithoutFile() -> Self {
        .init("fileUploadWithoutFile", "@FileUpload needs a file parameter: name it 'body' or mark it with @Body(\"name\")")
    }
    static func notAsyncThrows(_ name: String) -> Self {
        .init("notAsyncThrows", "'\(name)' must be 'async throws': every call goes over the network and can fail")
    }
    static func shadowedInAttribute(_ name: String, attribute: String) -> Self {
        .init("shadowedInAttribute", "'\(name)' in @\(attribute) would mean \(name == "client" || name == "self" || name.hasPrefix("_") ? "the generated service's own '\(name)'" : "the method's parameter '\(name)'") in the generated code, not what it means here; use a type's static member (Config.\(name)) or another name")
    }
    static func reservedName(_ name: String) -> Self {
        .init("reservedName", "'\(name)' is reserved for the generated method; rename the parameter")
    }
    static func unnamedParameter(position: Int) -> Self {
        .init("unnamedParameter", "parameter \(position) has no name, so the generated method cannot send it; name it (`_ id: Int`)")
    }
    static func genericMethod(_ name: String) -> Self {
        .init("genericMethod", "'\(name)' is generic; generated services need concrete parameter and return types")
    }
    static func unsupportedParameter(_ name: String) -> Self {
        .init("unsupportedParameter", "parameter '\(name)' is variadic or inout; take an array or a value instead")
    }
    static func unboundParameter(_ name: String) -> Self {
        .init("unboundParameter", "parameter '\(name)' is not sent; use it in the path as {\(name)}, or list it in @QueryParams, @Header or @Body",
              severity: .warning)
    }
}

/// Every fix-it the macros offer.
struct ServiceFixIt: FixItMessage {
    let message: String
    var fixItID: MessageID { MessageID(domain: "CourierMacros", id: message) }

    static func addParameter(_ declaration: String) -> Self { .init(message: "add parameter '\(declaration)'") }
    static let addAsyncThrows = Self(message: "add 'async throws'")
    static func uppercase(_ method: String) -> Self { .init(message: "use '\(method)'") }
    static func removeFromQueryParams(_ name: String) -> Self { .init(message: "remove '\(name)' from @QueryParams") }
    static func removeAttribute(_ attribute: String) -> Self { .init(message: "remove '\(attribute)'") }
    static func addToQueryParams(_ name: String) -> Self { .init(message: "send '\(name)' as a query item") }
    static func use(_ text: String) -> Self { .init(message: "use '\(text)'") }
    static func useParameter(_ name: String) -> Self { .init(message: "use the parameter '\(name)'") }
    static func sendAs(_ name: String) -> Self { .init(message: "send it as '\(name)'") }
    static func sendParameter(_ parameter: String, as wireName: String) -> Self {
        .init(message: "send '\(parameter)' as '\(wireName)'")
    }
}
