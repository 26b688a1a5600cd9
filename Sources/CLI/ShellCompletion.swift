/// Completion scripts for bash, zsh and fish, generated from the same command specifications as
/// the help: commands, options, option values with fixed choices, files for FILE values,
/// folders for DIR values, and for manifests folders and the `.yml`/`.yaml` files that are
/// manifests (a top-level `assemblies:`; bash and fish look inside, zsh goes by the name).
enum ShellCompletion {
    /// The shells a script can be made for.
    static let shells = ["bash", "zsh", "fish"]

    /// How a value is completed.
    enum Values: Equatable {
        case none, files, directories, manifests
        case choices([String])
    }

    static func values(of option: CommandSpec.Option) -> Values {
        if !option.choices.isEmpty { return .choices(option.choices) }
        switch option.valueName {
        case "FILE": return .files
        case "DIR": return .directories
        default: return .none
        }
    }

    static func values(of argument: CommandSpec.Argument) -> Values {
        if !argument.choices.isEmpty { return .choices(argument.choices) }
        switch argument.name {
        case "MANIFEST": return .manifests
        case "FILE", "OLD", "NEW": return .files
        case "DIR": return .directories
        default: return .none
        }
    }

    /// `--color`, which every command takes before or after its name.
    static let colorOption = CommandSpec.Option(name: "color", valueName: "WHEN", help: "When to use colour.", choices: ["auto", "always", "never"])

    /// A command's options as completed: its own, `--help` and `--color`.
    private static func options(of spec: CommandSpec) -> [CommandSpec.Option] { spec.allOptions + [colorOption] }

    /// The script for `shell` (one of `shells`).
    static func script(for shell: String, commands specs: [CommandSpec]) -> String {
        switch shell {
        case "zsh": zsh(specs)
        case "fish": fish(specs)
        default: bash(specs)
        }
    }

    // MARK: bash

    private static func bash(_ specs: [CommandSpec]) -> String {
        var lines = [
            "# pipeline completion for bash: source it, or save it as",
            "# ~/.local/share/bash-completion/completions/pipeline (made by `pipeline completions bash`).",
            "# Hidden files and folders (.git, .pipeline) only when the word starts with a dot.",
            "_pipeline_visible() {",
            "    local path",
            "    while IFS= read -r path; do [[ ${path##*/} == .* && ${cur##*/} != .* ]] || printf '%s\\n' \"$path\"; done",
            "}",
            "# Manifests: folders, and .yml and .yaml files with a top-level 'assemblies:' (not a policy).",
            "_pipeline_manifests() {",
            "    local path",
            "    while IFS= read -r path; do",
            "        if [[ -d $path ]]; then",
            "            printf '%s\\n' \"$path\"",
            "        elif [[ $path == *.yml || $path == *.yaml ]] && grep -qs '^assemblies:' \"$path\"; then",
            "            printf '%s\\n' \"$path\"",
            "        fi",
            "    done < <(compgen -f -- \"$cur\" | _pipeline_visible)",
            "}",
            "_pipeline_values() {",
            "    case \"$1\" in",
            "        files) mapfile -t COMPREPLY < <(compgen -f -- \"$cur\"); compopt -o filenames 2>/dev/null ;;",
            "        directories) mapfile -t COMPREPLY < <(compgen -d -- \"$cur\" | _pipeline_visible); compopt -o filenames 2>/dev/null ;;",
            "        manifests) mapfile -t COMPREPLY < <(_pipeline_manifests); compopt -o filenames 2>/dev/null ;;",
            "        *) mapfile -t COMPREPLY < <(compgen -W \"$1\" -- \"$cur\") ;;",
            "    esac",
            "}",
            "_pipeline() {",
            "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"",
            "    COMPREPLY=()",
            "    # --color WHEN or --color=WHEN (bash makes '=' a word of its own).",
            "    if [[ $prev == --color || ( $prev == = && ${COMP_WORDS[COMP_CWORD-2]} == --color ) ]]; then",
            "        _pipeline_values \"auto always never\"; return",
            "    fi",
            "    # The command is the first word after the global options.",
            "    local first=1",
            "    while [[ $first -lt $COMP_CWORD && ${COMP_WORDS[first]} == --color* ]]; do",
            "        if [[ ${COMP_WORDS[first]} == --color ]]; then",
            "            [[ ${COMP_WORDS[first+1]} == = ]] && first=$((first + 1))",
            "            first=$((first + 1))",
            "        fi",
            "        first=$((first + 1))",
            "    done",
            "    if [[ $COMP_CWORD -eq $first ]]; then",
            "        _pipeline_values \"\(specs.map(\.name).joined(separator: " ")) help --help --version --color\"",
            "        return",
            "    fi",
            "    local position=0 word index",
            "    for ((index = first + 1; index < COMP_CWORD; index++)); do",
            "        word=\"${COMP_WORDS[index]}\"",
            "        [[ $word == -* ]] && continue",
            "        [[ $word == = ]] && continue",
            "        case \"${COMP_WORDS[index-1]}\" in \(valueOptionPattern(specs))|=) continue ;; esac",
            "        position=$((position + 1))",
            "    done",
            "    case \"${COMP_WORDS[first]}\" in",
            "        help) [[ $COMP_CWORD -eq $((first + 1)) ]] && _pipeline_values \"\(specs.map(\.name).joined(separator: " "))\" ;;",
        ]
        for spec in specs {
            lines.append("        \(spec.name))")
            let valued = spec.options.filter { $0.valueName != nil }
            if !valued.isEmpty {
                lines.append("            case \"$prev\" in")
                for option in valued {
                    lines.append("                --\(option.name)) _pipeline_values \(bashValues(values(of: option))); return ;;")
                }
                lines.append("            esac")
            }
            lines.append("            if [[ $cur == -* ]]; then _pipeline_values \"\(options(of: spec).map { "--" + $0.name }.joined(separator: " "))\"; return; fi")
            if !spec.arguments.isEmpty {
                lines.append("            case $position in")
                for (index, argument) in spec.arguments.enumerated() {
                    let pattern = argument.variadic ? "\(index)|*" : "\(index)"
                    lines.append("                \(pattern)) _pipeline_values \(bashValues(values(of: argument))) ;;")
                    if argument.variadic { break }
                }
                lines.append("            esac")
            }
            lines.append("            ;;")
        }
        lines += ["    esac", "}", "complete -F _pipeline pipeline", ""]
        return lines.joined(separator: "\n")
    }

    private static func valueOptionPattern(_ specs: [CommandSpec]) -> String {
        let names = Set(specs.flatMap { $0.options.filter { $0.valueName != nil }.map { "--" + $0.name } } + ["--color"])
        return names.sorted().joined(separator: "|")
    }

    private static func bashValues(_ values: Values) -> String {
        switch values {
        case .none: "\"\""
        case .files: "files"
        case .directories: "directories"
        case .manifests: "manifests"
        case .choices(let choices): "\"\(choices.joined(separator: " "))\""
        }
    }

    // MARK: zsh

    private static func zsh(_ specs: [CommandSpec]) -> String {
        var lines = [
            "#compdef pipeline",
            "# pipeline completion for zsh: save it as _pipeline in a folder of $fpath, or source it after compinit",
            "# (made by `pipeline completions zsh`).",
            "_pipeline() {",
            "    local -a commands",
            "    commands=(",
        ]
        lines += specs.map { "        '\(zshQuoted($0.name + ":" + zshText($0.summary)))'" }
        lines += [
            "        'help:Show the help of a command.'",
            "    )",
            "    # Global options before the command: --color WHEN or --color=WHEN.",
            "    while (( CURRENT > 2 )) && [[ ${words[2]} == --color* ]]; do",
            "        if [[ ${words[2]} == --color ]]; then",
            "            if (( CURRENT == 3 )); then _values 'when' auto always never; return; fi",
            "            words[2]=(); (( CURRENT-- ))",
            "        fi",
            "        words[2]=(); (( CURRENT-- ))",
            "    done",
            "    if (( CURRENT == 2 )); then",
            "        if compset -P '--color='; then _values 'when' auto always never",
            "        elif [[ $PREFIX == -* ]]; then compadd -- --help --version --color",
            "        else _describe -t commands 'pipeline command' commands",
            "        fi",
            "        return",
            "    fi",
            "    local command=${words[2]}",
            "    curcontext=\"${curcontext%:*}-$command:\"",
            "    shift words",
            "    (( CURRENT-- ))",
            "    case $command in",
            "        help) _describe -t commands 'pipeline command' commands ;;",
        ]
        for spec in specs {
            var specifications = options(of: spec).map { option -> String in
                let description = "--\(option.name)[\(zshText(option.help))]"
                guard let valueName = option.valueName else { return "'\(zshQuoted(description))'" }
                return "'\(zshQuoted(description + ":" + valueName + ":" + zshAction(values(of: option))))'"
            }
            for (index, argument) in spec.arguments.enumerated() {
                let position = argument.variadic ? "*" : (argument.optional ? "::" : ":")
                let prefix = argument.variadic ? "*:" : "\(index + 1)\(position == "::" ? "::" : ":")"
                specifications.append("'\(zshQuoted(prefix + argument.name + ":" + zshAction(values(of: argument))))'")
                if argument.variadic { break }
            }
            lines.append("        \(spec.name)) _arguments -s \(specifications.joined(separator: " ")) ;;")
        }
        lines += [
            "    esac", "}",
            // Autoloaded from $fpath it completes at once; sourced, it registers itself.
            "if [[ \"$funcstack[1]\" == _pipeline ]]; then _pipeline \"$@\"; else compdef _pipeline pipeline; fi", "",
        ]
        return lines.joined(separator: "\n")
    }

    private static func zshAction(_ values: Values) -> String {
        switch values {
        case .none: " "
        case .files: "_files"
        case .directories: "_files -/"
        case .manifests: "_files -g \"*.(yml|yaml)\""
        case .choices(let choices): "(\(choices.joined(separator: " ")))"
        }
    }

    /// Help text fit for a zsh description: no brackets or colons, which `_arguments` reads.
    private static func zshText(_ text: String) -> String {
        text.replacingOccurrences(of: "[", with: "(").replacingOccurrences(of: "]", with: ")").replacingOccurrences(of: ":", with: " -")
    }

    private static func zshQuoted(_ text: String) -> String {
        text.replacingOccurrences(of: "'", with: "'\\''")
    }

    // MARK: fish

    private static func fish(_ specs: [CommandSpec]) -> String {
        var lines = [
            "# pipeline completion for fish: save it as ~/.config/fish/completions/pipeline.fish (made by `pipeline completions fish`).",
            "complete -c pipeline -f",
            "function __pipeline_manifests",
            "    for path in (commandline -ct)*",
            "        if test -d $path",
            "            echo $path/",
            "        else if string match -qr '\\.ya?ml$' -- $path; and grep -qs '^assemblies:' $path",
            "            echo $path",
            "        end",
            "    end",
            "end",
            "# The command: the first word that is not a global option (--color WHEN or --color=WHEN).",
            "function __pipeline_command",
            "    set -l words (commandline -opc)",
            "    set -e words[1]",
            "    while set -q words[1]",
            "        switch $words[1]",
            "            case --color",
            "                set -e words[1]",
            "                set -q words[1]; and set -e words[1]",
            "            case '--color=*'",
            "                set -e words[1]",
            "            case '*'",
            "                echo $words[1]",
            "                return 0",
            "        end",
            "    end",
            "    return 1",
            "end",
            "function __pipeline_needs_command",
            "    not __pipeline_command >/dev/null",
            "end",
            "function __pipeline_using",
            "    set -l command (__pipeline_command); and test \"$command\" = \"$argv[1]\"",
            "end",
            "complete -c pipeline -l color -x -a 'auto always never' -d 'When to use colour.'",
            "complete -c pipeline -n __pipeline_needs_command -l help -d 'Show the help.'",
            "complete -c pipeline -n __pipeline_needs_command -l version -d 'Print the version.'",
            "complete -c pipeline -n __pipeline_needs_command -a help -d 'Show the help of a command.'",
            "complete -c pipeline -n '__pipeline_using help' -a '\(specs.map(\.name).joined(separator: " "))'",
        ]
        for spec in specs {
            lines.append("complete -c pipeline -n __pipeline_needs_command -a \(spec.name) -d '\(fishQuoted(spec.summary))'")
            let condition = "-n '__pipeline_using \(spec.name)'"
            for option in spec.allOptions {
                var line = "complete -c pipeline \(condition) -l \(option.name)"
                if option.valueName != nil {
                    switch values(of: option) {
                    case .choices(let choices): line += " -x -a '\(choices.joined(separator: " "))'"
                    case .files, .manifests: line += " -r -F"
                    case .directories: line += " -x -a '(__fish_complete_directories)'"
                    case .none: line += " -x"
                    }
                }
                lines.append(line + " -d '\(fishQuoted(option.help))'")
            }
            for argument in spec.arguments {
                switch values(of: argument) {
                case .choices(let choices): lines.append("complete -c pipeline \(condition) -a '\(choices.joined(separator: " "))'")
                case .manifests: lines.append("complete -c pipeline \(condition) -a '(__pipeline_manifests)'")
                case .files: lines.append("complete -c pipeline \(condition) -F")
                case .directories: lines.append("complete -c pipeline \(condition) -a '(__fish_complete_directories)'")
                case .none: continue
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func fishQuoted(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
    }
}
