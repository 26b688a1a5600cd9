/// Where an Assembly's files live beyond this engine's folder, when several engines share them
/// (a bucket): the engine keeps local copies under its folder, in the layout records name.
protocol SharedFiles: Sendable {
    /// Makes `files` present under this engine's folder, fetched where missing.
    func fetch(_ files: [AssemblyFile]) throws(RobotError)
    /// Stores `files` (under this engine's folder) where every engine finds them.
    func publish(_ files: [AssemblyFile]) throws(RobotError)
    /// Copies `file` from where every engine finds it to `path` (a copy to serve, then remove).
    func copy(_ file: AssemblyFile, to path: String) throws(RobotError)
    /// Removes this engine's local copies of Assembly `id`'s files and of `inputs` (its run ended
    /// here, or they were published): the bucket keeps them.
    func dropLocalCopies(assembly id: String, inputs: [AssemblyFile])
}
