import Foundation
import Basics
import Wire

/// Where an engine Assembly is in its life. Only `AssemblyLifecycle` moves it on; the wire's
/// `ASSEMBLY_*` values are spelt only in `ok`.
enum AssemblyPhase: Equatable, Sendable {
    /// Waiting for its announced tus uploads.
    case uploading
    /// Its steps are running.
    case executing
    /// Every step finished.
    case completed
    /// A client canceled it.
    case canceled
    /// A step (or the steps as a whole) failed with this error code.
    case failed(code: APIErrorCode)

    /// Whether nothing more happens to it.
    var isTerminal: Bool {
        switch self {
        case .uploading, .executing: false
        case .completed, .canceled, .failed: true
        }
    }

    /// The status's `ok` (none for a failure, which has an `error` instead).
    var ok: AssemblyStatusCode? {
        switch self {
        case .uploading: .uploading
        case .executing: .executing
        case .completed: .completed
        case .canceled: .canceled
        case .failed: nil
        }
    }

    /// The status's `error`.
    var error: APIErrorCode? {
        if case .failed(let code) = self { return code }
        return nil
    }

    /// The phase a status's `ok` and `error` describe (as records are stored).
    init(ok: AssemblyStatusCode?, error: APIErrorCode?) {
        if let error { self = .failed(code: error); return }
        switch ok {
        case .uploading: self = .uploading
        case .completed: self = .completed
        case .canceled, .aborted: self = .canceled
        default: self = .executing
        }
    }
}

/// What happens to an engine Assembly.
enum AssemblyEvent: Sendable {
    /// The last expected upload arrived (or none was expected).
    case uploadsComplete
    /// The engine started again while the Assembly was executing.
    case restarted
    /// A client asked to cancel it.
    case cancel
    /// Every step finished with these results (and errors skipped under `ignore_errors`, and
    /// what tools warned of).
    case stepsFinished(results: [String: [AssemblyFile]], ignored: [AssemblyStatusDocument.IgnoredError], warnings: [AssemblyStatusDocument.Warning])
    /// The steps failed.
    case stepsFailed(code: APIErrorCode, message: String)
    /// An upload could not be kept with the Assembly (the engine's disk): it can never run.
    case uploadsFailed(code: APIErrorCode, message: String)
    /// It cannot go on: its files were read in place by a process that ended, or changed since.
    case abandoned(code: APIErrorCode, message: String)
}

/// What the engine does after an event.
enum AssemblyAction: Equatable, Sendable {
    /// Nothing: the event changed nothing, or only the record.
    case none
    /// Run its steps.
    case execute
    /// Remove what its steps wrote: it reports no results (canceled or failed).
    case discardResults
}

/// The one transition function of an engine Assembly: a phase and an event in, the next phase
/// and an action out. Events that do not apply (a cancel after completion, results after a
/// cancel) change nothing, so the order concurrent requests arrive in cannot undo an ending.
enum AssemblyLifecycle {
    static func next(_ phase: AssemblyPhase, on event: AssemblyEvent) -> (phase: AssemblyPhase, action: AssemblyAction) {
        switch (phase, event) {
        case (.uploading, .uploadsComplete): (.executing, .execute)
        case (.executing, .restarted): (.executing, .execute)
        case (.uploading, .cancel), (.executing, .cancel): (.canceled, .none)
        case (.executing, .stepsFinished): (.completed, .none)
        case (.executing, .stepsFailed(let code, _)): (.failed(code: code), .discardResults)
        case (.uploading, .uploadsFailed(let code, _)): (.failed(code: code), .none)
        case (.uploading, .abandoned(let code, _)), (.executing, .abandoned(let code, _)): (.failed(code: code), .discardResults)
        // Steps that end after a cancel leave their files behind unless told.
        case (.canceled, .stepsFinished), (.canceled, .stepsFailed): (.canceled, .discardResults)
        default: (phase, .none)
        }
    }

    /// The message a status shows in `phase`.
    static func message(_ phase: AssemblyPhase) -> String {
        switch phase {
        case .uploading: "The Assembly is waiting for its uploads."
        case .executing: "The Assembly is executing."
        case .completed: "The Assembly was successfully completed."
        case .canceled: "The Assembly was canceled."
        case .failed: "The Assembly failed."
        }
    }
}
