import Basics
import Foundation
import Wire

/// How the announcement of an Assembly's end to its `notify_url` goes; kept in its record, so an
/// engine restarted before it was delivered delivers it then.
struct AssemblyNotification: Codable, Sendable, Equatable {
    enum State: String, Codable, Sendable {
        /// Being tried (or waiting for the engine to start again).
        case pending
        /// The notify URL answered 2xx.
        case successful
        /// Every attempt failed.
        case failed
    }

    var state: State
    /// When the first attempt began.
    var start: Date?
    var attempts = 0
    /// What the notify URL answered last: its status and the start of its body.
    var responseCode: Int?
    var responseData: String?
    /// Seconds from the first attempt to the last.
    var duration: Double?
    /// Why the last attempt failed.
    var error: String?

    /// The most of an answer's body kept.
    static let keptResponseBytes = 1024

    /// The `notify_*` fields of a status.
    func describe(_ document: inout AssemblyStatusDocument) {
        document.notifyStart = start.map(AuthTime.format)
        document.notifyStatus = state.rawValue
        document.notifyResponseCode = responseCode
        document.notifyResponseData = responseData
        document.notifyDuration = duration
        document.notifyError = error
    }
}
