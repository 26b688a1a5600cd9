import Basics

/// Assembles parser events into nodes: collections, anchors, aliases, merge keys, duplicate keys.
struct TreeBuilder {
    enum CollectionKind { case sequence, mapping }

    private struct Frame {
        var kind: CollectionKind
        var location: SourceLocation
        var tag: String?
        var anchor: String?
        var weight = 1
        var elements: [Node] = []
        var pendingKey: Node?
        var pairs: [Pair] = []
        var merges: [Node] = []
        var expectingMergeValue = false
    }

    let file: String
    let maxExpandedNodes: Int
    let maxDepth: Int
    private(set) var root: Node?
    private(set) var diagnostics: [Diagnostic] = []
    private var stack: [Frame] = []
    private var anchors: [String: (node: Node, weight: Int)] = [:]

    init(file: String, maxExpandedNodes: Int, maxDepth: Int) {
        self.file = file
        self.maxExpandedNodes = maxExpandedNodes
        self.maxDepth = maxDepth
    }

    mutating func open(_ kind: CollectionKind, at location: SourceLocation, tag: String?, anchor: String?) throws(DiagnosticsError) {
        guard stack.count < maxDepth else {
            throw DiagnosticsError(.error(
                "yaml.too-deep", "collections are nested more than \(maxDepth) levels deep", at: location,
                hint: "flatten the structure"))
        }
        stack.append(Frame(kind: kind, location: location, tag: tag, anchor: anchor))
    }

    mutating func close() throws(DiagnosticsError) {
        guard let frame = stack.popLast() else { return }
        let node: Node
        switch frame.kind {
        case .sequence:
            node = Node(.sequence(frame.elements), at: frame.location, tag: frame.tag)
        case .mapping:
            node = Node(.mapping(mergedPairs(of: frame)), at: frame.location, tag: frame.tag)
        }
        try add(node, weight: frame.weight, anchor: frame.anchor)
    }

    mutating func alias(_ name: String, at location: SourceLocation) throws(DiagnosticsError) {
        guard let target = anchors[name] else {
            throw DiagnosticsError(.error(
                "yaml.unknown-anchor", "alias '*\(name)' refers to an anchor that is not defined above it",
                at: location, hint: "define '&\(name)' on a value before this alias, or quote it (\"*\(name)\") if it is a file pattern"))
        }
        try add(Node(target.node.kind, at: location, tag: target.node.tag), weight: target.weight, anchor: nil, isAlias: true)
    }

    mutating func add(_ node: Node, weight: Int, anchor: String?, isAlias: Bool = false) throws(DiagnosticsError) {
        if let anchor { anchors[anchor] = (node, weight) }
        guard var top = stack.popLast() else {
            root = node
            return
        }
        top.weight += weight
        if top.weight > maxExpandedNodes {
            throw DiagnosticsError(.error(
                "yaml.alias-expansion",
                "the document expands to more than \(maxExpandedNodes) nodes once aliases are resolved",
                at: node.location,
                hint: "this looks like an alias bomb ('billion laughs'); write the values out or nest fewer aliases"))
        }
        switch top.kind {
        case .sequence:
            top.elements.append(node)
        case .mapping:
            if top.expectingMergeValue {
                top.merges.append(node)
                top.expectingMergeValue = false
            } else if let key = top.pendingKey {
                top.pairs.append(Pair(key: key, value: node))
                top.pendingKey = nil
            } else if !isAlias, let scalar = node.scalar, scalar.style == .plain, scalar.text == "<<" {
                top.expectingMergeValue = true
            } else {
                if node.scalar == nil {
                    diagnostics.append(.error(
                        "yaml.complex-key", "mapping keys must be plain values, not \(node.kindDescription)",
                        at: node.location, hint: "use a string as the key"))
                }
                top.pendingKey = node
            }
        }
        stack.append(top)
    }

    /// Explicit pairs first (duplicates reported), then keys from `<<` sources that are not already set.
    private mutating func mergedPairs(of frame: Frame) -> [Pair] {
        var seen: [String: SourceLocation] = [:]
        var pairs: [Pair] = []
        for pair in frame.pairs {
            let key = pair.keyText
            if let first = seen[key] {
                diagnostics.append(.error(
                    "yaml.duplicate-key", "duplicate key '\(key)'", at: pair.key.location,
                    hint: "remove one of the two; YAML keys must be unique within a mapping",
                    notes: [.init("'\(key)' is first set here", at: first)]))
                continue
            }
            seen[key] = pair.key.location
            pairs.append(pair)
        }
        for source in frame.merges {
            for mapping in mergeMappings(source) {
                for pair in mapping where seen[pair.keyText] == nil {
                    seen[pair.keyText] = pair.key.location
                    pairs.append(pair)
                }
            }
        }
        return pairs
    }

    private mutating func mergeMappings(_ source: Node) -> [[Pair]] {
        switch source.kind {
        case .mapping(let pairs):
            return [pairs]
        case .sequence(let elements):
            return elements.compactMap { element in
                if let pairs = element.pairs { return pairs }
                diagnostics.append(mergeError(element))
                return nil
            }
        case .scalar:
            diagnostics.append(mergeError(source))
            return []
        }
    }

    private func mergeError(_ node: Node) -> Diagnostic {
        .error(
            "yaml.invalid-merge", "a merge key '<<' needs a mapping or a list of mappings, found \(node.kindDescription)",
            at: node.location, hint: "write '<<: *anchor' where '&anchor' names a mapping")
    }
}
