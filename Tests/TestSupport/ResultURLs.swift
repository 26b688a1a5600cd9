import Basics
import Foundation

/// Result and Assembly URLs as a results file holds them.
public enum ResultURLs {
    /// The path of the file `url` names, read as the results file in `resultsFolder` names it
    /// (the embedded engine's files are kept relative to that folder).
    public static func path(_ url: String, resultsFolder: String) -> String? {
        URL(string: PortableURL.resolved(url, in: resultsFolder))?.path
    }
}
