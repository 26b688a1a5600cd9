/// Which engine announces each ended Assembly to its `notify_url`, when several share their state:
/// one at a time, for a lease renewed before each attempt; a delivery whose engine died is taken
/// up by another once its lease has run out.
protocol DeliveryLeases: Sendable {
    /// Takes (or renews) the delivery of Assembly `id`'s announcement; false when another engine has it.
    func take(_ id: String) -> Bool
    /// Gives the delivery of `id` back (delivered, given up, or the engine stops).
    func release(_ id: String)
    /// The ended Assemblies whose announcement is pending and that no engine is delivering.
    func orphaned() -> [String]
}
