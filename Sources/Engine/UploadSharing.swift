/// Where tus uploads live when several engines share them, as tusd's `DataStore` and `Locker`
/// together: the record and the bytes sent so far where every engine finds them, and one writer
/// at a time across engines. A PATCH is written into this engine's spool file first; its bytes
/// are sent on when the body ends (`save`), so any engine takes the next PATCH.
protocol UploadSharing: Sendable {
    /// Stores a new upload's record.
    func create(_ record: TusUploadRecord) throws
    /// The upload's record as last saved by any engine; nil when there is none.
    func load(_ id: String) -> TusUploadRecord?
    /// Sends the bytes the spool file holds between the stored offset and `record.offset`
    /// (written at their offsets), finishes the upload when it is complete, then stores `record`.
    func save(_ record: TusUploadRecord, spool: String) throws
    /// Removes the upload: its record and whatever was sent.
    func delete(_ id: String)
    /// Takes the right to write `id` across engines, for a lease renewed while held; false when
    /// another engine holds it.
    func hold(_ id: String) -> Bool
    /// Gives the right to write `id` back.
    func letGo(_ id: String)
    /// Asks the engine holding `id` to end its request, and waits up to `patience` for it to let
    /// go; whether `id` is free.
    @available(*, noasync, message: "blocks its thread")
    func askToLetGo(_ id: String, patience: Duration) -> Bool
    /// Calls `handler` with each upload another engine asks this one to let go of.
    func onLetGoAsked(_ handler: @escaping @Sendable (String) -> Void)
    /// Whether the last request reached where the records are: an upload not found otherwise is not known to be gone.
    var isReachable: Bool { get }
    /// Where a finished upload's bytes are named: a path in the data folder whose copy every
    /// engine fetches (`SharedFiles`).
    func finishedPath(_ id: String) -> String
}
