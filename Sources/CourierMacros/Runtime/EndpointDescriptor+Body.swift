import Courier
import Foundation

extension EndpointDescriptor {
    /// Sends `value` as JSON, encoded with the client's encoder (`@Body` or a parameter named `body`).
    public mutating func jsonBody(_ value: some Encodable & Sendable) {
        body = .json(value)
    }

    /// Sends bytes as they are (a `Data` body parameter on a method without `@FileUpload`),
    /// with the content type their first bytes name (`image/png`, `application/pdf`…). Bytes
    /// that name no format get none of their own: the configuration's default `Content-Type`
    /// applies, as it does to a hand-written request's `Data` body (a guess of `text/plain`
    /// would replace a default `application/json` for JSON bytes).
    public mutating func jsonBody(_ value: Data) {
        let inferred = MediaType.infer(fileName: nil, data: value)
        let named = !inferred.hasSameEssence(as: .plainText) && !inferred.hasSameEssence(as: .octetStream)
        body = named ? .data(value, contentType: inferred.description) : value.requestBody
    }

    /// Sends an explicit body as is (a `RequestBody` parameter).
    public mutating func jsonBody(_ value: RequestBody) {
        body = value
    }

    /// An optional body parameter: `nil` sends no body (not JSON `null`); a value is sent as
    /// its non-optional type would be.
    public mutating func jsonBody<Value: Encodable & Sendable>(_ value: Value?) {
        if let value { jsonBody(value) } else { body = nil }
    }

    /// An optional `Data` body: `nil` sends no body; bytes are sent as they are (not as a
    /// base64 JSON string).
    public mutating func jsonBody(_ value: Data?) {
        if let value { jsonBody(value) } else { body = nil }
    }

    /// An optional `RequestBody`: `nil` sends no body.
    public mutating func jsonBody(_ value: RequestBody?) {
        body = value
    }

    // MARK: Forms

    /// A `Data` parameter of a `@FormURLEncoded` method: a URL-encoded form carries text, so the
    /// request fails with `APIError.Kind.encodingFailed` rather than sending
    /// "<N> bytes"; `nil` is left out. Send bytes with `@FileUpload`.
    public mutating func formField(_ name: String, _ value: Data?) {
        guard value != nil else { return }
        fail(EndpointError("the form field '\(name)' is Data: an application/x-www-form-urlencoded form carries text only; send bytes with @FileUpload"))
    }

    /// Adds an `application/x-www-form-urlencoded` field; `nil` is left out, an array adds one
    /// field per element (`@FormURLEncoded`).
    public mutating func formField<Value>(_ name: String, _ value: Value?) {
        var fields = formFields ?? []
        defer { formFields = fields; body = .form(fields) }
        guard let value else { return }
        if Mirror(reflecting: value).displayStyle == .dictionary {
            return fail(EndpointError("the form field '\(name)' is a dictionary, which has no text form; bind its entries one by one"))
        }
        if let values = Self.elements(value) {
            if values.contains(where: { $0 is Data }) { formField(name, Data()) }   // fails the call, as one Data does
            for element in values { if let text = Self.text(element) { fields.append((name, text)) } }
        } else if let text = Self.text(value) {
            fields.append((name, text))
        }
    }

    /// Adds the top-level properties of an `Encodable` value as form fields, in key order
    /// (`@FormURLEncoded` with a body parameter), encoded with the client's encoder when the
    /// call is sent (its key and date strategies apply, as to a JSON body). Nested objects are
    /// sent as JSON text.
    public mutating func formBody(_ value: some Encodable & Sendable) {
        if formFields == nil { formFields = [] }
        pendingFormBody = (value, formFields?.count ?? 0)
        body = .form(formFields ?? [])
    }

    /// This call with its `@FormURLEncoded` body parameter flattened into fields by `encoder`.
    func resolvingFormBody(with encoder: JSONEncoder) -> EndpointDescriptor {
        guard let (value, position) = pendingFormBody else { return self }
        var resolved = self
        resolved.pendingFormBody = nil
        let after = Array((formFields ?? []).dropFirst(position))
        resolved.formFields = Array((formFields ?? []).prefix(position))
        do {
            for (key, element) in try FormFlattener.fields(of: value, encoder: encoder) { resolved.formField(key, element) }
            resolved.formFields = (resolved.formFields ?? []) + after
            resolved.body = .form(resolved.formFields ?? [])
        } catch {
            resolved.fail(error)
        }
        return resolved
    }

    // MARK: Multipart

    /// Adds a file part from bytes (`@FileUpload`): the description names the part, the file
    /// and its type; without one the part is named after the parameter and the type is inferred
    /// from the bytes (JPEG, PNG, GIF, TIFF, PDF, text…).
    public mutating func filePart(_ name: String, _ data: Data, description: PayloadDescription?) {
        let resolved = description ?? PayloadDescription.inferred(name: name, data: data)
        var form = multipart ?? MultipartForm()
        form.append(data, name: resolved.name, fileName: resolved.fileName, contentType: resolved.mimeType)
        setMultipart(form)
    }

    /// Adds a file part streamed from disk (`@FileUpload` with a `URL` parameter); the type is
    /// inferred from the extension unless the description gives one.
    public mutating func filePart(_ name: String, _ file: URL, description: PayloadDescription?) {
        var form = multipart ?? MultipartForm()
        do {
            try form.appendFile(at: file, name: description?.name ?? name, fileName: description?.fileName,
                                contentType: description?.mimeType)
            setMultipart(form)
        } catch {
            fail(error)
        }
    }

    /// Uses a whole form as the body (`@FileUpload` with a `MultipartForm` parameter); fields
    /// added before or after are kept.
    public mutating func filePart(_ name: String, _ form: MultipartForm, description: PayloadDescription?) {
        if description != nil {
            // A description names one file part; a form's parts were named when appended.
            fail(EndpointError("_payloadDescription names a single file part, but the body '\(name)' is a MultipartForm whose parts carry their own names: name them when you append them"))
            return
        }
        var merged = multipart ?? MultipartForm(boundary: form.boundary)
        for part in form.parts { merged.append(part) }
        setMultipart(merged)
    }

    /// Adds a `Data` parameter of a `@FileUpload` method (besides the file) as a file part of
    /// its bytes, the type inferred from them; `nil` is left out.
    public mutating func multipartField(_ name: String, _ value: Data?) {
        guard let value else { return }
        filePart(name, value, description: nil)
    }

    /// Adds a `URL` parameter of a `@FileUpload` method (besides the file) as a text field; a
    /// file URL fails the call with `APIError.Kind.encodingFailed`: its path is local,
    /// and reading the file it names is for the method's file parameter (`@Body`) alone — a URL
    /// a user typed must never upload a local file. `nil` is left out.
    public mutating func multipartField(_ name: String, _ value: URL?) {
        guard let value else { return }
        if value.isFileURL {
            fail(EndpointError("the multipart field '\(name)' is a file URL: only the upload's file parameter (@Body) is read from disk; pass a web URL, or the file's bytes as Data"))
        } else {
            multipartField(name, value.absoluteString)
        }
    }

    /// Adds a text field to a multipart body (other parameters of a `@FileUpload` method);
    /// `nil` is left out.
    public mutating func multipartField<Value>(_ name: String, _ value: Value?) {
        guard let value else { return }
        if Mirror(reflecting: value).displayStyle == .dictionary {
            return fail(EndpointError("the multipart field '\(name)' is a dictionary, which has no text form; bind its entries one by one"))
        }
        if let values = Self.elements(value) {
            // Each element as the scalar overloads would send it: `[Data]` as file parts.
            for element in values {
                switch element {
                case let data as Data: multipartField(name, data)
                case let url as URL: multipartField(name, url)
                default: multipartField(name, Optional(element))
                }
            }
            return
        }
        var form = multipart ?? MultipartForm()
        if let text = Self.text(value) { form.append(text, name: name) }
        setMultipart(form)
    }

    private mutating func setMultipart(_ form: MultipartForm) {
        multipart = form
        body = .multipart(form)
    }
}

/// Turns an `Encodable` value into form fields: encoded to JSON, read back as ``FormValue``s so
/// booleans, numbers and strings keep their JSON spelling on every platform.
enum FormFlattener {
    static func fields(of value: some Encodable, encoder: JSONEncoder) throws -> [(String, Any)] {
        let data = try encoder.encode(value)
        guard let object = try? JSONDecoder().decode([String: FormValue].self, from: data) else {
            throw EndpointError("a @FormURLEncoded body must encode as a keyed object")
        }
        return object.keys.sorted().compactMap { key in
            guard let element = object[key] else { return nil }
            switch element {
            case .null: return nil
            case .list(let values): return (key, values.map(\.text))
            default: return (key, element.text)
            }
        }
    }
}

/// A JSON value as a form field sees it.
enum FormValue: Decodable {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case list([FormValue])
    /// An object, kept as its JSON text.
    case object(String)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int.self) { self = .integer(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([FormValue].self) { self = .list(value) }
        else {
            let object = try container.decode([String: FormValue].self)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            self = .object(String(decoding: try encoder.encode(object), as: UTF8.self))
        }
    }

    /// The field's text.
    var text: String {
        switch self {
        case .null: ""
        case .bool(let value): value ? "true" : "false"
        case .integer(let value): String(value)
        case .number(let value): String(value)
        case .string(let value): value
        case .list(let values): values.map(\.text).joined(separator: ",")
        case .object(let json): json
        }
    }
}

extension FormValue: Encodable {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .list(let values): try container.encode(values)
        case .object(let json): try container.encode(json)
        }
    }
}

