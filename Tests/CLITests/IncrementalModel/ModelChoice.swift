import Foundation

/// Chooses the next action from what the project holds now, as a team would act on it.
enum ModelChoice {
    /// Names as teams have them: spaces, `#`, `%`, accents (written NFC here; a twin adds the NFD
    /// spelling), and a subfolder.
    static let names = ["a.png", "b c.png", "100%.png", "#1.png", "Cr\u{E8}me.png", "Zo\u{EB}.png", "sub/d.png", "sub/\u{C5}ngstr\u{F6}m.png"]

    /// The next action for a project holding `files`.
    static func next(files: [String], using generator: inout SeededGenerator) -> ModelAction {
        let image = ModelImage(width: Int.random(in: 8...40, using: &generator), height: Int.random(in: 8...40, using: &generator))
        let free = names.map { "img/" + $0 }.filter { name in !files.contains { Array($0.utf8) == Array(name.utf8) } }
        guard let existing = files.randomElement(using: &generator) else {
            return .add(free.randomElement(using: &generator) ?? "img/a.png", image)
        }
        let target = free.randomElement(using: &generator)
        switch Int.random(in: 0..<100, using: &generator) {
        case 0..<18: return target.map { .add($0, image) } ?? .rewrite(existing, image)
        case 18..<28: return target.map { .copy(existing, to: $0) } ?? .delete(existing)
        case 28..<38: return target.map { .move(existing, to: $0) } ?? .delete(existing)
        case 38..<48: return .delete(existing)
        case 48..<58: return .rewrite(existing, image)
        case 58..<66: return .twin(existing, image)
        case 66..<74: return .width([16, 24, 32].randomElement(using: &generator) ?? 16)
        case 74..<80: return .ignoreErrors(Bool.random(using: &generator))
        case 80..<86: return .download(["build", "out"].randomElement(using: &generator) ?? "build")
        case 86..<93: return .deadEndpoint
        default: return .interrupt(afterLines: Int.random(in: 0...3, using: &generator))
        }
    }
}
