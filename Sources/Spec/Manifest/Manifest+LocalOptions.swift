import Basics

extension Manifest {
    /// Every option of a local step that the local engine would refuse when it runs the step (a
    /// number out of its range, a value of another type, a crop that is no region, an option it
    /// needs left out): each step's options are decoded through its robot's declaration, as the
    /// engine decodes them, and each refusal is an error at the value. Values known only at run
    /// time (`${…}` variables) are not judged, nor what a Template the manifest does not hold
    /// (`template_id`) may give; what the catalog or the other local checks say is not said again.
    var optionProblemsForTheLocalEngine: [Diagnostic] {
        let jobSteps = jobs.flatMap { job in
            job.steps.map { step in
                // The service merges a job's step over its Template's step of the same name.
                let inherited = job.template?.steps.first { $0.name.value == step.name.value }?.instructions.objectValue ?? [:]
                return LocalStep(step: step, locations: job.locations, inherited: inherited, remoteTemplate: job.templateID != nil)
            }
        }
        let templateSteps = templates.flatMap { template in
            template.steps.map { LocalStep(step: $0, locations: template.locations, inherited: [:], remoteTemplate: false) }
        }
        return (jobSteps + templateSteps).flatMap(\.refusals)
    }
}

/// A step of the manifest as the local engine would run it.
private struct LocalStep {
    var step: Step
    /// Where its owner's instructions were written (`["steps", name, option]`).
    var locations: LocationIndex
    /// The options of the manifest Template's step it is merged over (judged with the Template).
    var inherited: [String: JSONValue]
    /// Whether it is merged over a step of a Template the manifest does not hold, which may give what it leaves out.
    var remoteTemplate: Bool

    /// What the engine would refuse of the step's options, one error per option.
    var refusals: [Diagnostic] {
        guard let declaration = RobotRegistry.declaration(of: step.robot), let own = step.instructions.objectValue else { return [] }
        let given = Set(own.keys).union(inherited.keys)
        var options = inherited.merging(own) { _, mine in mine }.filter { !isJudgedElsewhere($0.key, $0.value) }
        var found: [Diagnostic] = []
        // Decoding stops at the first refusal: the option refused is set aside and the rest decoded again.
        while true {
            let refusal: RobotOptionError?
            do throws(RobotOptionError) {
                _ = try CommonParameters.of(options, robot: step.robot)
                _ = try declaration.parameters(options, of: step.robot)
                refusal = nil
            } catch {
                refusal = error
            }
            guard let refusal else { return found }
            guard let option = refusal.option, options[option] != nil else {
                // An option the robot needs that the step does not give (a Template may), or gives
                // but was set aside (judged elsewhere, or refused above): nothing more to say of it.
                if let option = refusal.option, remoteTemplate || given.contains(option) { return found }
                let hint = refusal.option.map { "give '\($0)' in the step, or use another endpoint for this job" } ?? "use another endpoint for this job"
                return found + [diagnostic(refusal.message, at: step.name.location, hint: hint)]
            }
            // A value of the Template's own step is said where the Template is checked.
            if own[option] != nil {
                found.append(diagnostic(refusal.message, at: locations.valueLocation(["steps", step.name.value, option]) ?? step.name.location))
            }
            options[option] = nil
        }
    }

    /// Whether the option `key` is not the engine's decoding's to judge here: a value known only at
    /// run time, a secret (refused in a manifest anyway), a parameter the robot does not have or
    /// whose value the catalog refuses, one the local engine does not implement, or a value it
    /// does not run (each said by its own check).
    private func isJudgedElsewhere(_ key: String, _ value: JSONValue) -> Bool {
        if value.serialized().contains("${") || StorageSteps.secretParameters.contains(key) { return true }
        if RobotCatalog.structuralKeys.contains(key) { return false }
        guard let parameter = RobotCatalog.bundled.robots[step.robot]?.parameters[key] ?? RobotCatalog.legacy[key] else { return true }
        return parameter.problem(with: value) != nil || RobotCatalog.implementsLocally(robot: step.robot, parameter: key) == false
            || RobotCatalog.localValueProblem(robot: step.robot, option: key, value: value) != nil
    }

    private func diagnostic(
        _ message: String, at location: SourceLocation?,
        hint: String = "the local engine checks each option when it runs the step; change the value, or use another endpoint for this job"
    ) -> Diagnostic {
        .error("manifest.refused-locally", "the local engine's \(step.robot) refuses step '\(step.name.value)': \(message)", at: location, hint: hint)
    }
}
