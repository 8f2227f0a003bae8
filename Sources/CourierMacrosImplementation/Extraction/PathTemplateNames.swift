/// The `{name}` templates of a path, as the core's `PathTemplate` reads them: `{name}`,
/// `{+name}` and `{name=default}` / `{name="default"}`.
struct PathTemplateNames {
    struct Template: Equatable {
        var name: String
        var hasDefault: Bool
    }

    /// The templates in order, or the reason the path is malformed.
    static func parse(_ path: String) -> Result<[Template], PathTemplateError> {
        var templates: [Template] = []
        var rest = Substring(path)
        // Only the path is filled in: the query and the fragment are sent as written, so a
        // template there would go out as `%7Bq%7D` with the value dropped.
        if let mark = path.firstIndex(where: { $0 == "?" || $0 == "#" }), let open = path[mark...].firstIndex(of: "{") {
            let name = path[open...].dropFirst().prefix { $0 != "}" && $0 != "=" }
            return .failure(PathTemplateError(reason: "'{\(name)}' is after '\(path[mark])': only the path is filled in; bind the parameter with @QueryParams instead"))
        }
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else {
                return .failure(PathTemplateError(reason: "'{' without a closing '}'"))
            }
            var spec = rest[rest.index(after: open)..<close]
            if spec.first == "+" { spec = spec.dropFirst() }
            var name = spec
            var hasDefault = false
            if let equals = spec.firstIndex(of: "=") {
                name = spec[..<equals]
                hasDefault = true
            }
            let trimmed = name.trimmingCharacters(in: " ")
            guard !trimmed.isEmpty, trimmed.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                return .failure(PathTemplateError(reason: "'{\(spec)}' is not a parameter name"))
            }
            templates.append(Template(name: trimmed, hasDefault: hasDefault))
            rest = rest[rest.index(after: close)...]
        }
        return .success(templates)
    }
}

struct PathTemplateError: Error {
    var reason: String
}

extension Substring {
    fileprivate func trimmingCharacters(in character: Character) -> String {
        var s = self
        while s.first == character { s = s.dropFirst() }
        while s.last == character { s = s.dropLast() }
        return String(s)
    }
}
