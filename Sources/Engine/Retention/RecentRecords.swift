/// The settled Assemblies read lately, at most `capacity`: a client polling a status, or fetching
/// the results of an Assembly that just ended, reads its record once, not at every request.
struct RecentRecords {
    let capacity: Int
    private var records: [String: AssemblyRecord] = [:]
    /// Ids from least to most recently used.
    private var order: [String] = []

    init(capacity: Int) { self.capacity = max(1, capacity) }

    var count: Int { records.count }

    /// Assembly `id` when it is kept; it becomes the most recent.
    mutating func get(_ id: String) -> AssemblyRecord? {
        guard let record = records[id] else { return nil }
        touch(id)
        return record
    }

    /// Keeps `record` as the most recent, forgetting the least recent past `capacity`.
    mutating func put(_ record: AssemblyRecord) {
        if records.updateValue(record, forKey: record.id) == nil { order.append(record.id) } else { touch(record.id) }
        if records.count > capacity { records.removeValue(forKey: order.removeFirst()) }
    }

    /// Assembly `id`, no longer kept.
    mutating func take(_ id: String) -> AssemblyRecord? {
        guard let record = records.removeValue(forKey: id) else { return nil }
        order.removeAll { $0 == id }
        return record
    }

    mutating func remove(_ id: String) { _ = take(id) }

    private mutating func touch(_ id: String) {
        guard order.last != id, let position = order.lastIndex(of: id) else { return }
        order.remove(at: position)
        order.append(id)
    }
}
