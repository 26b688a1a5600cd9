import Basics

/// A YAML node with the location of its first character; aliases are already resolved.
public struct Node: Sendable {
    /// What the node holds.
    public enum Kind: Sendable {
        case scalar(Scalar)
        case sequence([Node])
        case mapping([Pair])
    }

    /// The node's content.
    public var kind: Kind
    /// Where the node starts.
    public var location: SourceLocation
    /// An explicit tag such as `!!str`, if one was written.
    public var tag: String?

    /// Creates a node.
    public init(_ kind: Kind, at location: SourceLocation, tag: String? = nil) {
        self.kind = kind
        self.location = location
        self.tag = tag
    }

    /// The scalar, if this node is one.
    public var scalar: Scalar? {
        if case .scalar(let scalar) = kind { return scalar }
        return nil
    }

    /// The pairs, if this node is a mapping.
    public var pairs: [Pair]? {
        if case .mapping(let pairs) = kind { return pairs }
        return nil
    }

    /// The elements, if this node is a sequence.
    public var elements: [Node]? {
        if case .sequence(let elements) = kind { return elements }
        return nil
    }

    /// "a mapping", "a sequence", "a string", ... for messages.
    public var kindDescription: String {
        switch kind {
        case .mapping: "a mapping"
        case .sequence: "a sequence"
        case .scalar(let scalar):
            switch scalar.resolved(tag: tag) {
            case .null: "null"
            case .bool: "a boolean"
            case .int: "an integer"
            case .double: "a number"
            case .string: "a string"
            }
        }
    }
}

/// A key and its value in a mapping.
public struct Pair: Sendable {
    /// The key node (always a scalar in the documents we accept).
    public var key: Node
    /// The value node.
    public var value: Node

    /// Creates a pair.
    public init(key: Node, value: Node) {
        self.key = key
        self.value = value
    }

    /// The key's text.
    public var keyText: String { key.scalar?.text ?? "" }
}

/// A scalar's text and how it was written.
public struct Scalar: Sendable, Hashable {
    /// How a scalar was written; only plain scalars are resolved to numbers, booleans and null.
    public enum Style: Sendable, Hashable {
        case plain, singleQuoted, doubleQuoted, literal, folded
    }

    /// The scalar's text after YAML unescaping.
    public var text: String
    /// How it was written.
    public var style: Style

    /// Creates a scalar.
    public init(_ text: String, style: Style = .plain) {
        self.text = text
        self.style = style
    }
}
