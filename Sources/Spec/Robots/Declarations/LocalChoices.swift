/// Value lists several robots' options share.
enum LocalChoices {
    /// The resize strategies the local engine runs.
    static let strategies = ["crop", "fillcrop", "fit", "min_fit", "pad", "stretch"]
    /// Where a crop or a watermark sits.
    static let gravity = ["bottom", "bottom-left", "bottom-right", "center", "left", "right", "top", "top-left", "top-right"]
}
