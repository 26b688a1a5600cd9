import Basics

// The order results, left-out files and warnings are listed in: by source, then by name or step,
// byte for byte (`ExactName`), so that two sources whose names differ only by Unicode
// normalization keep one order, run after run.

extension RunResults.ResultFile {
    /// Its place among a step's results: source, then name.
    var order: (ExactName, ExactName) { (ExactName(source ?? ""), ExactName(name)) }
}

extension RunResults.LeftOut {
    /// Its place among an entry's left-out files: source, then step.
    var order: (ExactName, ExactName) { (ExactName(source ?? ""), ExactName(step)) }
}

extension RunResults.Warning {
    /// Its place among an entry's warnings: source, then step.
    var order: (ExactName, ExactName) { (ExactName(source ?? ""), ExactName(step)) }
}
