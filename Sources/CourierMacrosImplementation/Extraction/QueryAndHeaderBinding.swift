import SwiftDiagnostics
import SwiftParser
import SwiftSyntax

/// `@QueryParams`, `@Headers` and `@Header`: which parameters go to the query and the headers,
/// under which names.
extension EndpointExtractor {
    // MARK: Query

    /// Binds `@QueryParams(["page"])` (sent as `page`) and `@QueryParams(["perPage": "per_page"])`
    /// (sent as `per_page`), in the order written.
    func bindQuery(_ attributes: EndpointAttributes, function: FunctionDeclSyntax, endpoint: inout EndpointModel,
                   binder: inout ParameterBinder, into sink: inout DiagnosticSink) {
        var names = WireNameRegistry(kind: .query)
        for query in attributes.queryParams {
            if let array = query.array {
                for element in array.elements {
                    bindQueryName(element, in: array, of: query.attribute, function: function,
                                  endpoint: &endpoint, binder: &binder, names: &names, into: &sink)
                }
            } else if let dictionary = query.dictionary {
                guard case .elements(let elements) = dictionary.content else { continue }  // [:]
                for element in elements {
                    bindQueryMapping(element, in: dictionary, of: query.attribute, function: function,
                                     endpoint: &endpoint, binder: &binder, names: &names, into: &sink)
                }
            } else {
                sink.report(.notLiteral("QueryParams"), at: query.attribute)
            }
        }
    }

    /// `"page"` in `@QueryParams(["page"])`: the parameter `page`, sent as `page`.
    private func bindQueryName(_ element: ArrayElementSyntax, in array: ArrayExprSyntax, of attribute: AttributeSyntax,
                               function: FunctionDeclSyntax, endpoint: inout EndpointModel, binder: inout ParameterBinder,
                               names: inout WireNameRegistry, into sink: inout DiagnosticSink) {
        guard let name = EndpointAttributes.string(element.expression) else {
            sink.report(.notLiteral("QueryParams"), at: element)
            return
        }
        let remove = FixIts.removeElement(element, from: array, name: name)
        guard let index = binder.lookup(name) else {
            // `"per_page"` naming `perPage`: offer to send `perPage` under that name.
            var fixIts = [remove]
            if let match = binder.lookupLoosely(name), WireNames.problem(with: name, as: .query) == nil {
                fixIts.insert(FixIts.mapQueryName(element, from: array, of: attribute, in: function,
                                                  parameter: binder.parameters[match].name, wireName: name), at: 0)
                binder.settle(match, as: .query(name))
            }
            sink.report(.unknownParameter(name, in: "QueryParams"), at: element, fixIts: fixIts)
            return
        }
        bindQueryItem(index, as: name, at: element, removal: remove, endpoint: &endpoint, binder: &binder, names: &names, into: &sink)
    }

    /// `"perPage": "per_page"` in `@QueryParams([...])`: the parameter `perPage`, sent as `per_page`.
    private func bindQueryMapping(_ element: DictionaryElementSyntax, in dictionary: DictionaryExprSyntax, of attribute: AttributeSyntax,
                                  function: FunctionDeclSyntax, endpoint: inout EndpointModel, binder: inout ParameterBinder,
                                  names: inout WireNameRegistry, into sink: inout DiagnosticSink) {
        guard let parameter = EndpointAttributes.string(element.key) else {
            sink.report(.notLiteral("QueryParams"), at: element.key)
            return
        }
        guard let wireName = EndpointAttributes.string(element.value) else {
            sink.report(.wireNameNotLiteral(parameter, kind: .query), at: element.value)
            if let index = binder.lookup(parameter) { binder.settle(index, as: .query(parameter)) }
            return
        }
        let remove = FixIts.removeEntry(element, from: dictionary, of: attribute, in: function, name: parameter)
        guard let index = binder.lookup(parameter) else {
            if let reversed = binder.lookup(wireName) {
                sink.report(.reversedMapping(parameter, wireName), at: element, fixIts: [FixIts.swap(element)])
                binder.settle(reversed, as: .query(parameter))
            } else if let match = binder.lookupLoosely(parameter), let key = element.key.as(StringLiteralExprSyntax.self) {
                let name = binder.parameters[match].name
                sink.report(.unknownParameter(parameter, in: "QueryParams"), at: element.key,
                            fixIts: [FixIts.replaceLiteral(key, with: name, message: .useParameter(name)), remove])
                binder.settle(match, as: .query(wireName))
            } else {
                sink.report(.unknownParameter(parameter, in: "QueryParams"), at: element.key, fixIts: [remove])
            }
            return
        }
        if let problem = WireNames.problem(with: wireName, as: .query) {
            var fixIts: [FixIt] = []
            if let value = element.value.as(StringLiteralExprSyntax.self) {
                if problem == .empty {
                    let name = binder.parameters[index].name
                    fixIts.append(FixIts.replaceLiteral(value, with: name, message: .sendAs(name)))
                } else if let repaired = WireNames.repaired(wireName, as: .query) {
                    fixIts.append(FixIts.replaceLiteral(value, with: repaired, message: .use(repaired)))
                }
            }
            sink.report(.invalidWireName(wireName, for: parameter, problem, kind: .query), at: element.value, fixIts: fixIts)
            binder.settle(index, as: .query(wireName))
            return
        }
        bindQueryItem(index, as: wireName, at: element, removal: remove, endpoint: &endpoint, binder: &binder, names: &names, into: &sink)
    }

    /// Binds parameter `index` as the query item `wireName`, unless it is already sent or another
    /// parameter already has that name.
    private func bindQueryItem(_ index: Int, as wireName: String, at node: some SyntaxProtocol, removal: FixIt,
                               endpoint: inout EndpointModel, binder: inout ParameterBinder,
                               names: inout WireNameRegistry, into sink: inout DiagnosticSink) {
        let parameter = binder.parameters[index].name
        if let first = binder.parameters[index].binding.description {
            sink.report(.boundTwice(parameter, first: first), at: node, fixIts: [removal])
            return
        }
        if let other = names.owner(of: wireName, besides: parameter) {
            sink.report(.sharedWireName(wireName, other, parameter, kind: .query), at: node, fixIts: [removal])
            binder.settle(index, as: .query(wireName))
            return
        }
        names.record(wireName, for: parameter)
        binder.bind(index, as: .query(wireName))
        endpoint.queryBindings.append((wireName, parameter))
    }

    // MARK: Headers

    /// Binds `@Headers([...])` (static) and `@Header("X-Trace", "traceID")` (a parameter sent as
    /// the header `X-Trace`).
    func bindHeaders(_ attributes: EndpointAttributes, function: FunctionDeclSyntax, endpoint: inout EndpointModel,
                     binder: inout ParameterBinder, into sink: inout DiagnosticSink) {
        // Every `@Headers`, in order (several are as one with all their entries).
        for expression in attributes.headers {
            if let dictionary = expression.as(DictionaryExprSyntax.self) {
                if case .elements(let elements) = dictionary.content {
                    endpoint.staticHeaders.append(.pairs(elements.map { ($0.key, $0.value) }))
                }
            } else {
                endpoint.staticHeaders.append(.dictionary(expression))
            }
        }
        var names = WireNameRegistry(kind: .header)
        for (attribute, name, parameter) in attributes.header {
            guard let parameter else {
                sink.report(.notLiteral("Header"), at: attribute)
                continue
            }
            guard let index = binder.lookup(parameter) else {
                sink.report(.unknownParameter(parameter, in: "Header"), at: attribute)
                continue
            }
            switch binder.parameters[index].binding {
            case .unbound, .header:
                break  // the same parameter in two headers is one value sent twice
            default:
                sink.report(.boundTwice(parameter, first: binder.parameters[index].binding.description ?? ""), at: attribute)
                continue
            }
            // A literal name is checked now; another expression (a constant) when the call is made.
            if let literal = name.as(StringLiteralExprSyntax.self), let text = literal.representedLiteralValue {
                if let problem = WireNames.problem(with: text, as: .header) {
                    let fixIts = WireNames.repaired(text, as: .header).map {
                        [FixIts.replaceLiteral(literal, with: $0, message: .use($0))]
                    } ?? []
                    sink.report(.invalidWireName(text, for: parameter, problem, kind: .header), at: name, fixIts: fixIts)
                    binder.settle(index, as: .header(name.trimmedDescription))
                    continue
                }
                if let other = names.owner(of: text, besides: binder.parameters[index].name) {
                    sink.report(.sharedWireName(text, other, binder.parameters[index].name, kind: .header), at: attribute,
                                fixIts: [FixIts.remove(attribute, from: function)])
                    binder.settle(index, as: .header(name.trimmedDescription))
                    continue
                }
                names.record(text, for: binder.parameters[index].name)
            }
            binder.bind(index, as: .header(name.trimmedDescription))
            endpoint.headerBindings.append((name.trimmedDescription, binder.parameters[index].name))
        }
    }
}

/// The wire names given so far in one method, and the parameter sent under each.
struct WireNameRegistry {
    let kind: WireNames.Kind
    private var owners: [(name: String, parameter: String)] = []

    init(kind: WireNames.Kind) {
        self.kind = kind
    }

    /// The parameter other than `parameter` already sent as `name`, if any.
    func owner(of name: String, besides parameter: String) -> String? {
        // Compared as sent: a name written with backticks is sent without them.
        func plain(_ text: String) -> String { text.filter { $0 != "`" } }
        return owners.first { kind.same(plain($0.name), plain(name)) && $0.parameter != parameter }?.parameter
    }

    mutating func record(_ name: String, for parameter: String) {
        owners.append((name, parameter))
    }
}
