/// An Assembly as a service is asked about it: its id and, over HTTP, the URL its status is read
/// at. A service in the engine's process names it by `id` alone, so no URL is made for it there
/// and none is parsed back into an id.
public struct AssemblyReference: Sendable, Hashable, CustomStringConvertible {
    /// The Assembly's id (32 lowercase hexadecimal characters, checked by the service asked).
    public var id: String
    /// Where an HTTP service reads its status, when known (a stored or answered `assembly_url`);
    /// nil: the endpoint's own URL for the id.
    public var statusURL: String?

    /// The Assembly `id`, read at `statusURL` over HTTP when given.
    public init(id: String, statusURL: String? = nil) {
        (self.id, self.statusURL) = (id, statusURL)
    }

    /// The URL when one is known, else the id.
    public var description: String { statusURL ?? id }
}
