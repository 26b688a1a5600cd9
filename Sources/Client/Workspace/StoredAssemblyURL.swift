import APIClients
import HTTPClient
import Wire

/// Where a state or results file says an Assembly lives, taken only as far as it can be trusted:
/// a file restored from a cache or committed by a pull request must not send questions, replays,
/// uploads or cancels to another server or path, nor make another Assembly's answer this one's.
public enum StoredAssemblyURL {
    /// `stored` when it is on the origin of `endpoint` and names Assembly `id` (`…/assemblies/<id>`,
    /// no `.` or `..` segment); nil otherwise.
    public static func trusted(_ stored: String?, id: String, on endpoint: String) -> String? {
        guard let stored, let origin = URLOrigin.of(stored), origin == URLOrigin.of(endpoint),
              let segments = URLOrigin.plainPathSegments(stored), segments.suffix(2) == ["assemblies", id] else { return nil }
        return stored
    }

    /// Assembly `id` as a service at `endpoint` is asked about it: at `stored` where that is trusted,
    /// unless it is the endpoint's own URL for the id, which an HTTP client makes itself; a service
    /// in the engine's process is asked by the id alone (its stored URLs are never trusted: they
    /// are kept relative to the state).
    public static func reference(_ stored: String?, id: String, on endpoint: String) -> AssemblyReference {
        AssemblyReference(id: id, statusURL: trusted(stored, id: id, on: endpoint).flatMap { $0 == endpoint + "/assemblies/" + id ? nil : $0 })
    }

    /// The URL to ask about Assembly `id` on `endpoint`: the stored one where it is trusted, else the
    /// endpoint's own for the id; nil when `id` is not an Assembly id.
    public static func resolved(_ stored: String?, id: String?, on endpoint: String) -> String? {
        guard let id, AssemblyID.isValid(id) else { return nil }
        return trusted(stored, id: id, on: endpoint) ?? endpoint + "/assemblies/" + id
    }
}
