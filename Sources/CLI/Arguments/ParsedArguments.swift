import Foundation
/// A command line split into positional arguments and options, checked against a `CommandSpec`.
struct ParsedArguments: Sendable {
    /// The command the arguments are for (named in usage errors).
    var command = ""
    /// The environment the command runs in (for values such as `--shard auto` that read it).
    var environment: [String: String] = [:]
    var positionals: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []
    /// The options the command declares; a debug build stops at a lookup of any other (a typo
    /// would otherwise read as "not given"). `OptionDeclarationTests` checks the sources too.
    private var declared: Set<String> = []
    /// The manifest taken from a parent folder when none was named (said on standard error).
    var foundManifest: String?

    /// Whether a flag without a value was given.
    func flag(_ name: String) -> Bool {
        assert(isDeclared(name), "'--\(name)' is not an option of '\(command)'")
        return flags.contains(name)
    }

    /// The last value given for an option.
    func value(_ name: String) -> String? {
        assert(isDeclared(name), "'--\(name)' is not an option of '\(command)'")
        return values[name]?.last
    }

    /// Every value given for a repeatable option.
    func values(_ name: String) -> [String] {
        assert(isDeclared(name), "'--\(name)' is not an option of '\(command)'")
        return values[name] ?? []
    }

    private func isDeclared(_ name: String) -> Bool { declared.isEmpty || declared.contains(name) }

    /// Whether the command declares the option (for lookups shared by every command).
    func declares(_ name: String) -> Bool { declared.contains(name) }

    /// Parses `arguments` for `spec`; `--name value`, `--name=value` and `--` are understood.
    static func parse(_ arguments: [String], for spec: CommandSpec) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        parsed.command = spec.name
        parsed.declared = Set(spec.allOptions.map(\.name))
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            if argument == "-h" {
                parsed.flags.insert("help")
                continue
            }
            if argument.count == 2, let letter = argument.last, let option = spec.allOptions.first(where: { $0.short == letter }) {
                parsed.flags.insert(option.name)
                continue
            }
            guard argument.hasPrefix("--") else {
                throw UsageError("unknown option '\(argument)'", command: spec.name)
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let option = spec.allOptions.first(where: { $0.name == name }) else {
                let names = spec.allOptions.map(\.name)
                let hint = Suggestions.closestOption(name, in: names).map { " (did you mean '--\($0)'?)" } ?? ""
                throw UsageError("unknown option '--\(name)'\(hint)", command: spec.name)
            }
            guard option.valueName != nil else {
                if inlineValue != nil { throw UsageError("option '--\(name)' takes no value", command: spec.name) }
                parsed.flags.insert(name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if index < arguments.count {
                value = arguments[index]
                index += 1
            } else {
                throw UsageError("option '--\(name)' needs a value (\(option.valueName ?? "VALUE"))", command: spec.name)
            }
            if !option.repeatable, parsed.values[name] != nil {
                throw UsageError("option '--\(name)' is given more than once", command: spec.name)
            }
            parsed.values[name, default: []].append(value)
        }
        if parsed.flag("help") { return parsed }
        let required = spec.arguments.filter { !$0.optional }
        // A manifest is found as git finds its repository: none given means ./pipeline.yml, else
        // the one in the nearest parent folder up to the repository's root; a folder means the
        // pipeline.yml in it.
        if let index = spec.arguments.firstIndex(where: { $0.name == Self.manifestArgument || $0.isManifest }) {
            if parsed.positionals.count == index, required.count == index + 1, let found = ManifestDiscovery.find(Self.defaultManifest) {
                parsed.positionals.append(found)
                if found != Self.defaultManifest { parsed.foundManifest = found }
            } else if index < parsed.positionals.count {
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: parsed.positionals[index], isDirectory: &isFolder), isFolder.boolValue {
                    parsed.positionals[index] += (parsed.positionals[index].hasSuffix("/") ? "" : "/") + Self.defaultManifest
                }
            }
        }
        if parsed.positionals.count < required.count {
            let missing = required[parsed.positionals.count...]
            let hint = missing.first.map { $0.name == Self.manifestArgument || $0.isManifest } == true ? ManifestDiscovery.whyNoneFound() : ""
            throw UsageError("missing \(missing.map(\.name).joined(separator: " "))\(hint)", command: spec.name)
        }
        if parsed.positionals.count > spec.arguments.count, spec.arguments.last?.variadic != true {
            throw UsageError("unexpected argument '\(parsed.positionals[spec.arguments.count])'", command: spec.name)
        }
        return parsed
    }
}

extension ParsedArguments {
    /// The name commands give their manifest argument.
    static let manifestArgument = "MANIFEST"
    /// The manifest used when none is named, and the one a named folder holds.
    static let defaultManifest = "pipeline.yml"
}

/// A command line that cannot be understood (exit code 64).
struct UsageError: Error, Sendable {
    var message: String
    var command: String?

    init(_ message: String, command: String?) {
        self.message = message
        self.command = command
    }
}

import Basics

extension Suggestions {
    static func closestOption(_ name: String, in names: [String]) -> String? {
        closest(to: name, in: names)
    }
}
