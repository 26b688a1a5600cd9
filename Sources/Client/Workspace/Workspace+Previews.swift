extension Workspace {
    /// The previews `pipeline report` made, by content (`PreviewCache`): only those its last report used.
    public var previewsDirectory: String { manifestStateDirectory + "/previews" }
}
