import Basics

/// A Template as the Templates API gives it: one (with the answer's `ok`), or each item of a
/// listing. The engine writes it, the clients read it, leniently: a field of another type is
/// absent, as the SDKs read it.
public struct TemplateDocument: Sendable, Equatable {
    /// `TEMPLATE_FOUND`, `TEMPLATE_CREATED`, ... (`TemplateStatusCode`); nil in a listing.
    public var ok: String?
    /// Its id.
    public var id: String?
    /// Its name.
    public var name: String?
    /// `steps` and settings such as `allow_steps_override`.
    public var content: JSONValue?
    /// Whether it runs only for signed requests (`require_signature_auth`: 1, `true` or "1").
    public var requireSignatureAuth: Bool
    /// When it was made and last changed (UTC, `2026-12-01T19:41:53Z`).
    public var created: String?
    /// When it was last changed.
    public var modified: String?

    /// A document of these fields.
    public init(
        ok: String? = nil, id: String?, name: String?, content: JSONValue?, requireSignatureAuth: Bool, created: String? = nil, modified: String? = nil
    ) {
        (self.ok, self.id, self.name, self.content, self.requireSignatureAuth) = (ok, id, name, content, requireSignatureAuth)
        (self.created, self.modified) = (created, modified)
    }

    /// Reads an answer or a listing's item.
    public init(_ json: JSONValue) {
        let flag = json["require_signature_auth"]
        self.init(
            ok: json["ok"]?.stringValue, id: json["id"]?.stringValue, name: json["name"]?.stringValue, content: json["content"],
            requireSignatureAuth: flag?.boolValue ?? (flag?.intValue == 1 || flag?.stringValue == "1" || flag?.stringValue == "true"),
            created: json["created"]?.stringValue, modified: json["modified"]?.stringValue)
    }

    /// The JSON the API answers with.
    public var json: JSONValue {
        var object: [String: JSONValue] = ["require_signature_auth": .int(requireSignatureAuth ? 1 : 0)]
        object["ok"] = ok.map(JSONValue.string)
        object["id"] = id.map(JSONValue.string)
        object["name"] = name.map(JSONValue.string)
        object["content"] = content
        object["created"] = created.map(JSONValue.string)
        object["modified"] = modified.map(JSONValue.string)
        return .object(object)
    }
}

/// A page of the Templates listing: its items and the whole count.
public struct TemplateListDocument: Sendable, Equatable {
    /// The Templates on this page.
    public var items: [TemplateDocument]
    /// How many there are in all, when the service says.
    public var count: Int?

    /// A page of these items.
    public init(items: [TemplateDocument], count: Int?) {
        (self.items, self.count) = (items, count)
    }

    /// Reads a page; an item that is not an object is left out.
    public init(_ json: JSONValue) {
        self.init(items: (json["items"]?.arrayValue ?? []).filter { $0.objectValue != nil }.map(TemplateDocument.init), count: json["count"]?.intValue)
    }

    /// The JSON the API answers with.
    public var json: JSONValue {
        var object: [String: JSONValue] = ["items": .array(items.map(\.json))]
        object["count"] = count.map(JSONValue.int)
        return .object(object)
    }
}
