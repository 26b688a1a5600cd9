import Foundation
import TestSupport

/// What a run left that a person reads: every result of every source (step, name, bytes' MD5,
/// size, dimensions, download path) and every downloaded file with its SHA-256, one line each.
/// Made by Python, which compares names by their code points: the text holds names as JSON
/// escapes, so comparing two outcomes is comparing bytes, NFC and NFD never mixed up.
enum ModelOutcome {
    /// Every folder a download may be in (an old one must be empty once `download:` moved).
    static let downloadFolders = ["build", "out"]

    /// The outcome of the project in `folder`, whose results are `results.json`.
    static func read(_ folder: String) throws -> String {
        let result = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", script, folder] + downloadFolders)
        guard result.status == 0 else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: result.stderr]) }
        return result.stdout
    }

    private static let script = #"""
    import hashlib, json, os, sys
    folder, folders = sys.argv[1], sys.argv[2:]
    rows = []
    path = os.path.join(folder, "results.json")
    if os.path.exists(path):
        with open(path, "rb") as f:
            results = json.loads(f.read())
        for entry in results.get("assemblies", []):
            if entry.get("status") != "ASSEMBLY_COMPLETED":
                continue
            for step, files in sorted(entry.get("results", {}).items()):
                for item in files:
                    meta = item.get("meta") or {}
                    rows.append([item.get("source"), step, item.get("name"), item.get("md5hash"), item.get("size"),
                                 meta.get("width"), meta.get("height"), item.get("local_path")])
            for item in entry.get("left_out", []):
                rows.append([item.get("source"), item.get("step"), "left out", item.get("error")])
    downloads = []
    for download in folders:
        for directory, _, names in os.walk(os.path.join(folder, download)):
            for name in names:
                full = os.path.join(directory, name)
                with open(full, "rb") as f:
                    downloads.append([os.path.relpath(full, folder), hashlib.sha256(f.read()).hexdigest()])
    rows.sort(key=json.dumps)
    downloads.sort()
    for row in rows:
        print("result " + json.dumps(row, ensure_ascii=True))
    for row in downloads:
        print("download " + json.dumps(row, ensure_ascii=True))
    """#
}
