import SwiftDiagnostics
import SwiftParser
import SwiftSyntax
import SwiftSyntaxBuilder

/// Reads one protocol requirement into an ``EndpointModel``, reporting every misuse.
struct EndpointExtractor {
    /// `false` for a `@Mockable`-only protocol: HTTP attributes are optional then.
    var requiresHTTP: Bool

    func extract(_ function: FunctionDeclSyntax, into sink: inout DiagnosticSink) -> EndpointModel {
        let name = function.name.text
        checkEffects(function, into: &sink)
        if function.genericParameterClause != nil || function.genericWhereClause != nil {
            sink.report(.genericMethod(name), at: function.name)
        }
        var parameters = readParameters(function, into: &sink)
        var endpoint = EndpointModel(
            declaration: function, name: name, parameters: [],
            returnType: Self.returnType(function), httpMethod: nil, pathExpression: nil,
            staticHeaders: [], bodyEncoding: .json, options: nil)
        guard requiresHTTP else {
            endpoint.parameters = parameters
            return endpoint
        }
        let attributes = EndpointAttributes(function.attributes)
        var binder = ParameterBinder(function: function, parameters: parameters)
        bindMethodAndPath(attributes, function: function, endpoint: &endpoint, binder: &binder, into: &sink)
        let explicitBody = bindExplicitBody(attributes, function: function, endpoint: &endpoint, binder: &binder, into: &sink)
        bindQuery(attributes, function: function, endpoint: &endpoint, binder: &binder, into: &sink)
        bindHeaders(attributes, function: function, endpoint: &endpoint, binder: &binder, into: &sink)
        // After the path, query and headers: a parameter named `body` that one of them already
        // sends (`@GET("/notes/{body}")`) is not the implicit body.
        finishBody(explicitBody, attributes: attributes, function: function, endpoint: &endpoint, binder: &binder, into: &sink)
        endpoint.options = attributes.options
        checkCopiedExpressions(attributes, parameters: binder.parameters, into: &sink)
        for extra in attributes.extraOptions {
            sink.report(.twoOptions(function.name.text), at: extra, fixIts: [FixIts.remove(extra, from: function)])
        }
        parameters = binder.parameters
        for index in parameters.indices where parameters[index].binding == .unbound {
            if endpoint.bodyEncoding != .json {
                parameters[index].binding = .field
                endpoint.fieldParameters.append(parameters[index].name)
            } else if parameters[index].name != "_" {   // refused above: no name to send it under
                sink.report(.unboundParameter(parameters[index].name), at: binder.node(at: index),
                            fixIts: [FixIts.addToQueryParams(parameters[index].name, function: function, existing: attributes.firstQueryArray)])
            }
        }
        endpoint.parameters = parameters
        return endpoint
    }

    // MARK: Expressions copied into the generated method

    /// `@Headers` values, `@Header` names and `@Options` arguments are copied into the
    /// generated method, where a parameter of the same name, or the service's own `client`,
    /// would be what a name means — not the constant the attribute was checked against. Such a
    /// name is refused rather than silently sent as something else.
    private func checkCopiedExpressions(_ attributes: EndpointAttributes, parameters: [ParameterModel], into sink: inout DiagnosticSink) {
        let shadowing = Set(parameters.map { $0.name.filter { $0 != "`" } } + ["client", "self", "__endpoint", "_queryItems", "_payloadDescription"])
        func check(_ expression: some SyntaxProtocol, in attribute: String) {
            for token in expression.tokens(viewMode: .sourceAccurate) {
                guard let reference = token.parent?.as(DeclReferenceExprSyntax.self) else { continue }
                // `.seconds(5)`, `Locale.current`: a member's name is not looked up in scope.
                if let member = reference.parent?.as(MemberAccessExprSyntax.self), member.declName.id == reference.id { continue }
                let name = reference.baseName.text.filter { $0 != "`" }
                if shadowing.contains(name) {
                    sink.report(.shadowedInAttribute(name, attribute: attribute), at: reference)
                }
            }
        }
        for expression in attributes.headers { check(expression, in: "Headers") }
        for header in attributes.header where !header.name.is(StringLiteralExprSyntax.self) { check(header.name, in: "Header") }
        if let options = attributes.options { check(options, in: "Options") }
    }

    // MARK: Signature

    private func checkEffects(_ function: FunctionDeclSyntax, into sink: inout DiagnosticSink) {
        let effects = function.signature.effectSpecifiers
        let isAsync = effects?.asyncSpecifier != nil
        let throwsAny = effects?.throwsClause.map { $0.type == nil && $0.throwsSpecifier.tokenKind == .keyword(.throws) } ?? false
        if !(isAsync && throwsAny) {
            sink.report(.notAsyncThrows(function.name.text), at: function.signature,
                        fixIts: [FixIts.addAsyncThrows(to: function.signature)])
        }
    }

    private func readParameters(_ function: FunctionDeclSyntax, into sink: inout DiagnosticSink) -> [ParameterModel] {
        function.signature.parameterClause.parameters.enumerated().map { index, parameter in
            let label = parameter.firstName.tokenKind == .wildcard ? nil : parameter.firstName.text
            // The plain name (`default` for `` `default` ``, `for` in `search(for: String)`), as
            // diagnostics, fix-its and the wire spell it; generated code writes it with
            // backticks where Swift needs them (``SwiftName/code(_:)``).
            let name = (parameter.secondName ?? parameter.firstName).text.filter { $0 != "`" }
            if name == "_queryItems" || name == "_payloadDescription" || label == "_queryItems" || label == "_payloadDescription"
                || name == "self" || name == "Self" {
                sink.report(.reservedName(name), at: parameter)
            }
            if name == "_" {
                sink.report(.unnamedParameter(position: index + 1), at: parameter)
            }
            let isInout = parameter.type.as(AttributedTypeSyntax.self)?.specifiers.isEmpty == false
            if parameter.ellipsis != nil || isInout {
                sink.report(.unsupportedParameter(name), at: parameter)
            }
            return ParameterModel(label: label, name: name, type: parameter.type, binding: .unbound)
        }
    }

    static func returnType(_ function: FunctionDeclSyntax) -> TypeSyntax? {
        guard let type = function.signature.returnClause?.type else { return nil }
        let text = type.trimmedDescription
        return text == "Void" || text == "()" ? nil : type
    }

    // MARK: Method and path

    private func bindMethodAndPath(_ attributes: EndpointAttributes, function: FunctionDeclSyntax, endpoint: inout EndpointModel,
                                   binder: inout ParameterBinder, into sink: inout DiagnosticSink) {
        guard let method = attributes.methods.first else {
            sink.report(.missingHTTPMethod(function.name.text), at: function.name)
            return
        }
        for extra in attributes.methods.dropFirst() {
            sink.report(.twoHTTPMethods(function.name.text), at: extra.attribute,
                        fixIts: [FixIts.remove(extra.attribute, from: function)])
        }
        if !EndpointAttributes.knownMethods.contains(method.method) {
            let node: any SyntaxProtocol = method.methodExpression ?? method.attribute
            let upper = method.method.uppercased()
            let fixIts = EndpointAttributes.knownMethods.contains(upper) && method.methodExpression != nil
                ? [FixIts.replaceLiteral(method.methodExpression!, with: upper)] : []
            sink.report(.unknownHTTPMethod(method.method), at: node, fixIts: fixIts)
        }
        endpoint.httpMethod = method.method
        guard let path = method.path, let literal = path.as(StringLiteralExprSyntax.self),
              let value = literal.representedLiteralValue else {
            sink.report(.pathNotLiteral(), at: method.path.map(Syntax.init) ?? Syntax(method.attribute))
            return
        }
        endpoint.pathExpression = path
        switch PathTemplateNames.parse(value) {
        case .failure(let error):
            sink.report(.malformedTemplate(error.reason), at: path)
        case .success(let templates):
            var seen: Set<String> = []
            var missing: [PathTemplateNames.Template] = []
            for template in templates where seen.insert(template.name).inserted {
                guard let parameter = binder.lookup(template.name) else {
                    missing.append(template)
                    continue
                }
                binder.bind(parameter, as: .path(template.name))
                endpoint.pathBindings.append((template.name, binder.parameters[parameter].name))
            }
            for template in missing {
                sink.report(.unknownPathParameter(template.name), at: path,
                            fixIts: [FixIts.addParameter(template.name, optional: template.hasDefault, to: function.signature)])
            }
        }
    }

    // MARK: Body

    /// The parameter a `@Body("…")` names, bound at once so that the query and headers see it
    /// taken; its name and attribute, or nil when there is none (or it was refused).
    private func bindExplicitBody(_ attributes: EndpointAttributes, function: FunctionDeclSyntax, endpoint: inout EndpointModel,
                                  binder: inout ParameterBinder, into sink: inout DiagnosticSink) -> (name: String, node: Syntax)? {
        if let form = attributes.formURLEncoded, attributes.fileUpload != nil {
            sink.report(.formAndMultipart(), at: form)
        }
        endpoint.bodyEncoding = attributes.fileUpload != nil ? .multipart : attributes.formURLEncoded != nil ? .form : .json

        var chosen: (name: String, node: Syntax)?
        for (index, body) in attributes.bodies.enumerated() {
            guard let name = body.parameter else {
                sink.report(.notLiteral("Body"), at: body.attribute)
                continue
            }
            if index > 0 {
                sink.report(.twoBodies(chosen?.name ?? name, name), at: body.attribute,
                            fixIts: [FixIts.remove(body.attribute, from: function)])
                continue
            }
            guard binder.lookup(name) != nil else {
                sink.report(.unknownParameter(name, in: "Body"), at: body.attribute)
                continue
            }
            chosen = (name, Syntax(body.attribute))
        }
        guard let chosen, let index = binder.lookup(chosen.name) else { return chosen }
        if let first = binder.parameters[index].binding.description {
            sink.report(.boundTwice(chosen.name, first: first), at: chosen.node)
        } else {
            binder.bind(index, as: .body)
            endpoint.bodyParameter = binder.parameters[index].name
        }
        return chosen
    }

    /// The implicit body (a parameter named or labelled `body` that nothing else sends), and
    /// the checks that need the body settled: none on a GET or HEAD, a file for a file upload.
    private func finishBody(_ explicit: (name: String, node: Syntax)?, attributes: EndpointAttributes, function: FunctionDeclSyntax,
                            endpoint: inout EndpointModel, binder: inout ParameterBinder, into sink: inout DiagnosticSink) {
        var bodyNode = explicit?.node
        if let implicit = binder.lookup("body"), binder.parameters[implicit].binding == .unbound,
           binder.parameters[implicit].name == "body" || binder.parameters[implicit].label == "body" {
            if let explicit, explicit.name != "body", let attribute = attributes.bodies.first?.attribute {
                sink.report(.twoBodies("body", explicit.name), at: attribute, fixIts: [FixIts.remove(attribute, from: function)])
                binder.bind(implicit, as: .body)  // reported once, not again as "not sent"
            } else if explicit == nil {
                bodyNode = Syntax(binder.node(at: implicit))
                binder.bind(implicit, as: .body)
                endpoint.bodyParameter = binder.parameters[implicit].name
            }
        }
        if let method = endpoint.httpMethod, method == "GET" || method == "HEAD" {
            if let bodyNode {
                sink.report(.bodyNotAllowed(method), at: bodyNode)
            } else if let flag = attributes.formURLEncoded ?? attributes.fileUpload {
                sink.report(.bodyNotAllowed(method), at: flag)
            }
        }
        if bodyNode == nil, let upload = attributes.fileUpload {
            sink.report(.fileUploadWithoutFile(), at: upload)
        }
    }
}

/// The parameters of one method and where each is bound so far.
struct ParameterBinder {
    let function: FunctionDeclSyntax
    private(set) var parameters: [ParameterModel]

    init(function: FunctionDeclSyntax, parameters: [ParameterModel]) {
        self.function = function
        self.parameters = parameters
    }

    /// The parameter whose internal name (or, failing that, label) is `name` — written with
    /// or without backticks (`"default"` names `` `default` ``).
    func lookup(_ name: String) -> Int? {
        func plain(_ text: String) -> String { text.filter { $0 != "`" } }
        let name = plain(name)
        return parameters.firstIndex { plain($0.name) == name } ?? parameters.firstIndex { $0.label.map(plain) == name }
    }

    /// The one parameter whose name or label is `name` once case, `_` and `-` are ignored
    /// (`per_page` → `perPage`), for "did you mean" fix-its; nil when none or several match.
    func lookupLoosely(_ name: String) -> Int? {
        func loose(_ text: String) -> String { text.lowercased().filter { $0 != "_" && $0 != "-" } }
        let key = loose(name)
        let matches = parameters.indices.filter { index in
            loose(parameters[index].name) == key || parameters[index].label.map(loose) == key
        }
        return matches.count == 1 ? matches[0] : nil
    }

    mutating func bind(_ index: Int, as binding: ParameterModel.Binding) {
        parameters[index].binding = binding
    }

    /// Binds a parameter whose attribute was reported as an error, when it is still free, so it
    /// is not reported again as "not sent" (nothing is generated after an error).
    mutating func settle(_ index: Int, as binding: ParameterModel.Binding) {
        if parameters[index].binding == .unbound { parameters[index].binding = binding }
    }

    /// The declaration of the parameter at `index`, for diagnostics.
    func node(at index: Int) -> FunctionParameterSyntax {
        let list = function.signature.parameterClause.parameters
        return list[list.index(list.startIndex, offsetBy: index)]
    }
}

extension ParameterModel.Binding {
    /// Where the parameter already goes, for "bound twice"; nil when it is free.
    var description: String? {
        switch self {
        case .path(let name): "in the path as {\(name)}"
        case .query: "as a query item"
        case .header(let name): "as the header \(name)"
        case .body: "as the body"
        case .field: "as a form field"
        case .unbound: nil
        }
    }
}

