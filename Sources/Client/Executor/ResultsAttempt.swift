import Basics
import Foundation
import Wire

extension RunResults {
    /// A run's try at a planned Assembly that failed or was cut, kept beside the good results an
    /// earlier run made for it (which it never replaces): its outcome, where it ran, and its
    /// Assembly. The next run that completes the Assembly, or finds it cached, drops it.
    public struct Attempt: Sendable, Equatable {
        /// The error code (`CANNOT_CONNECT`, `INTERRUPTED`), or the state it was left in.
        public var status: String
        /// What went wrong.
        public var message: String?
        /// Its Assembly, when one was made.
        public var assemblyID: String?
        /// The endpoint it ran on, as the results name endpoints.
        public var endpoint: String?

        /// The attempt that `entry` records, made on `endpoint`.
        init(_ entry: Entry, endpoint: String?) {
            (status, message, assemblyID, self.endpoint) = (entry.status, entry.message, entry.assemblyID, endpoint)
        }

        /// The attempt `json` holds, as a results file writes it; nil without its status.
        init?(json: JSONValue) {
            guard let document = ResultsDocument.Attempt.read(json) else { return nil }
            self.init(document)
        }

        /// An attempt read from a results file (input: its words are made printable, an id that is not one dropped).
        init(_ document: ResultsDocument.Attempt) {
            status = document.status.printable
            message = document.message?.printable
            assemblyID = document.assemblyID.flatMap { AssemblyID.isValid($0) ? $0 : nil }
            endpoint = document.endpoint?.printable
        }

        /// Whether it was cut short (Ctrl-C, or the run ended first) rather than failed.
        public var isInterrupted: Bool { Self.interrupted.contains(status) }

        /// The codes of an Assembly a run was cut before it ended.
        public static let interrupted: Set<String> = [APIErrorCode.interrupted.rawValue, APIErrorCode.notStarted.rawValue]
    }
}
