import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder

/// The edits behind each fix-it.
enum FixIts {
    /// `func f()` → `func f() async throws`, keeping whichever of the two was there.
    static func addAsyncThrows(to signature: FunctionSignatureSyntax) -> FixIt {
        var fixed = signature
        let hasReturn = signature.returnClause != nil
        var effects = signature.effectSpecifiers ?? FunctionEffectSpecifiersSyntax()
        let trailing: Trivia = signature.effectSpecifiers?.trailingTrivia ?? (hasReturn ? .space : [])
        effects.asyncSpecifier = .keyword(.async, trailingTrivia: .space)
        effects.throwsClause = ThrowsClauseSyntax(throwsSpecifier: .keyword(.throws))
        effects = effects.with(\.trailingTrivia, trailing)
        if signature.effectSpecifiers == nil {
            fixed.parameterClause = signature.parameterClause.with(\.trailingTrivia, [])
            effects = effects.with(\.leadingTrivia, .space)
        } else {
            effects = effects.with(\.leadingTrivia, signature.effectSpecifiers?.leadingTrivia ?? [])
        }
        fixed.effectSpecifiers = effects
        return FixIt(message: ServiceFixIt.addAsyncThrows, changes: [.replace(oldNode: Syntax(signature), newNode: Syntax(fixed))])
    }

    /// Appends `name: String` (or `String?` for a template with a default) to the parameters.
    static func addParameter(_ name: String, optional: Bool, to signature: FunctionSignatureSyntax) -> FixIt {
        let declaration = "\(name): String\(optional ? "?" : "")"
        var clause = signature.parameterClause
        var parameters = Array(clause.parameters)
        if !parameters.isEmpty {
            parameters[parameters.count - 1].trailingComma = .commaToken(trailingTrivia: .space)
        }
        parameters.append(FunctionParameterSyntax(
            firstName: .identifier(name), colon: .colonToken(trailingTrivia: .space),
            type: TypeSyntax(stringLiteral: optional ? "String?" : "String")))
        clause.parameters = FunctionParameterListSyntax(parameters)
        return FixIt(message: ServiceFixIt.addParameter(declaration),
                     changes: [.replace(oldNode: Syntax(signature.parameterClause), newNode: Syntax(clause))])
    }

    /// `"get"` → `"GET"`.
    static func replaceLiteral(_ literal: StringLiteralExprSyntax, with value: String) -> FixIt {
        replaceLiteral(literal, with: value, message: .uppercase(value))
    }

    /// Replaces a string literal's value (`" per_page"` → `"per_page"`).
    static func replaceLiteral(_ literal: StringLiteralExprSyntax, with value: String, message: ServiceFixIt) -> FixIt {
        let replacement = StringLiteralExprSyntax(content: value).with(\.leadingTrivia, literal.leadingTrivia)
            .with(\.trailingTrivia, literal.trailingTrivia)
        return FixIt(message: message, changes: [.replace(oldNode: Syntax(literal), newNode: Syntax(replacement))])
    }

    /// Drops an attribute from a declaration.
    static func remove(_ attribute: AttributeSyntax, from function: FunctionDeclSyntax) -> FixIt {
        var kept = Array(function.attributes.filter { element in
            if case .attribute(let other) = element { return other.id != attribute.id }
            return true
        })
        // Removing the last attribute: the new last one ends as it did.
        if let last = kept.indices.last, case .attribute(let removedLast)? = function.attributes.last, removedLast.id == attribute.id {
            kept[last] = kept[last].with(\.trailingTrivia, attribute.trailingTrivia)
        }
        return FixIt(message: ServiceFixIt.removeAttribute(attribute.trimmedDescription),
                     changes: [.replace(oldNode: Syntax(function.attributes), newNode: Syntax(AttributeListSyntax(kept)))])
    }

    /// Drops one name from a `@QueryParams([...])` array.
    static func removeElement(_ element: ArrayElementSyntax, from array: ArrayExprSyntax, name: String) -> FixIt {
        var elements = array.elements.filter { $0.id != element.id }
        if let last = elements.indices.last {
            elements[last] = elements[last].with(\.trailingComma, nil)
        }
        let fixed = array.with(\.elements, elements)
        return FixIt(message: ServiceFixIt.removeFromQueryParams(name), changes: [.replace(oldNode: Syntax(array), newNode: Syntax(fixed))])
    }

    /// Drops one `"parameter": "wireName"` entry from a `@QueryParams([...])` dictionary, or the
    /// whole attribute when it is the only entry.
    static func removeEntry(_ element: DictionaryElementSyntax, from dictionary: DictionaryExprSyntax,
                            of attribute: AttributeSyntax, in function: FunctionDeclSyntax, name: String) -> FixIt {
        guard case .elements(let elements) = dictionary.content, elements.count > 1 else {
            return FixIt(message: ServiceFixIt.removeFromQueryParams(name), changes: remove(attribute, from: function).changes)
        }
        var kept = elements.filter { $0.id != element.id }
        if let last = kept.indices.last {
            kept[last] = kept[last].with(\.trailingComma, nil)
        }
        let fixed = dictionary.with(\.content, .elements(kept))
        return FixIt(message: ServiceFixIt.removeFromQueryParams(name),
                     changes: [.replace(oldNode: Syntax(dictionary), newNode: Syntax(fixed))])
    }

    /// `"per_page": "perPage"` → `"perPage": "per_page"`.
    static func swap(_ element: DictionaryElementSyntax) -> FixIt {
        let key = element.value.with(\.leadingTrivia, element.key.leadingTrivia).with(\.trailingTrivia, element.key.trailingTrivia)
        let value = element.key.with(\.leadingTrivia, element.value.leadingTrivia).with(\.trailingTrivia, element.value.trailingTrivia)
        let fixed = element.with(\.key, key).with(\.value, value)
        let message = ServiceFixIt.sendParameter(EndpointAttributes.string(element.value) ?? "", as: EndpointAttributes.string(element.key) ?? "")
        return FixIt(message: message, changes: [.replace(oldNode: Syntax(element), newNode: Syntax(fixed))])
    }

    /// `@QueryParams(["page", "per_page"])` naming the parameter `perPage` →
    /// `@QueryParams(["page"]) @QueryParams(["perPage": "per_page"])`; a list of one name becomes
    /// the mapping itself.
    static func mapQueryName(_ element: ArrayElementSyntax, from array: ArrayExprSyntax, of attribute: AttributeSyntax,
                             in function: FunctionDeclSyntax, parameter: String, wireName: String) -> FixIt {
        let message = ServiceFixIt.sendParameter(parameter, as: wireName)
        let mapping = DictionaryExprSyntax(content: .elements([
            DictionaryElementSyntax(key: StringLiteralExprSyntax(content: parameter), colon: .colonToken(trailingTrivia: .space),
                                    value: StringLiteralExprSyntax(content: wireName)),
        ]))
        if array.elements.count == 1 {
            let fixed = mapping.with(\.leadingTrivia, array.leadingTrivia).with(\.trailingTrivia, array.trailingTrivia)
            return FixIt(message: message, changes: [.replace(oldNode: Syntax(array), newNode: Syntax(fixed))])
        }
        var kept = array.elements.filter { $0.id != element.id }
        if let last = kept.indices.last {
            kept[last] = kept[last].with(\.trailingComma, nil)
        }
        var shortened = attribute.with(\.trailingTrivia, .space)
        shortened.arguments = .argumentList([LabeledExprSyntax(expression: array.with(\.elements, kept))])
        let added = AttributeSyntax(
            attributeName: IdentifierTypeSyntax(name: .identifier("QueryParams")),
            leftParen: .leftParenToken(),
            arguments: .argumentList([LabeledExprSyntax(expression: mapping)]),
            rightParen: .rightParenToken()
        ).with(\.trailingTrivia, attribute.trailingTrivia)
        var attributes: [AttributeListSyntax.Element] = []
        for existing in function.attributes {
            if case .attribute(let other) = existing, other.id == attribute.id {
                attributes.append(.attribute(shortened))
                attributes.append(.attribute(added))
            } else {
                attributes.append(existing)
            }
        }
        return FixIt(message: message,
                     changes: [.replace(oldNode: Syntax(function.attributes), newNode: Syntax(AttributeListSyntax(attributes)))])
    }

    /// Adds a name to the method's `@QueryParams`, or adds `@QueryParams(["name"])`.
    static func addToQueryParams(_ name: String, function: FunctionDeclSyntax, existing: ArrayExprSyntax?) -> FixIt {
        let literal = StringLiteralExprSyntax(content: name)
        if let existing {
            var elements = Array(existing.elements)
            if !elements.isEmpty {
                elements[elements.count - 1].trailingComma = .commaToken(trailingTrivia: .space)
            }
            elements.append(ArrayElementSyntax(expression: literal))
            let fixed = existing.with(\.elements, ArrayElementListSyntax(elements))
            return FixIt(message: ServiceFixIt.addToQueryParams(name), changes: [.replace(oldNode: Syntax(existing), newNode: Syntax(fixed))])
        }
        let attribute = AttributeSyntax(
            attributeName: IdentifierTypeSyntax(name: .identifier("QueryParams")),
            leftParen: .leftParenToken(),
            arguments: .argumentList([LabeledExprSyntax(expression: ArrayExprSyntax(elements: [ArrayElementSyntax(expression: literal)]))]),
            rightParen: .rightParenToken()
        ).with(\.leadingTrivia, .space)
        var attributes = function.attributes
        attributes.append(.attribute(attribute))
        return FixIt(message: ServiceFixIt.addToQueryParams(name),
                     changes: [.replace(oldNode: Syntax(function.attributes), newNode: Syntax(attributes))])
    }
}
