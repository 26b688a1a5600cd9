/// `pipeline.1`: the manual page in roff (man(7)), generated from the same command
/// specifications as the help, so the two never disagree.
enum ManualPage {
    static func render(_ specs: [CommandSpec], version: String, date: String = PipelineCLI.versionDate) -> String {
        var page = """
            .TH PIPELINE 1 "\(date)" "pipeline \(version)" "User Commands"
            .SH NAME
            pipeline \\- a declarative file-processing runner for Transloadit-compatible Assembly APIs
            .SH SYNOPSIS
            .B pipeline
            .I command
            [\\fIarguments\\fR] [\\fIoptions\\fR]
            .SH DESCRIPTION
            A manifest (pipeline.yml) names jobs: file globs and the processing steps their files go through.
            .B pipeline plan
            shows what would run,
            .B pipeline run
            batches the files into Assemblies, signs them, uploads every file over tus and writes the results;
            .B pipeline serve
            is a local engine that speaks the same API, so everything works offline.
            .SH COMMANDS

            """
        for spec in specs {
            page += ".SS \(escaped(spec.usage))\n\(escaped(spec.summary))\n"
            if let discussion = spec.discussion { page += ".PP\n\(escaped(discussion))\n" }
            for argument in spec.arguments {
                page += ".TP\n.I \(escaped(argument.name))\n\(escaped(argument.help))\n"
            }
            for option in spec.allOptions {
                // `.BI` sets its two words in bold and italics without a space: the space is in the first.
                let line = option.valueName.map { ".BI \"\\-\\-\(escaped(option.name)) \" \"\(escaped($0))\"" } ?? ".B \\-\\-\(escaped(option.name))"
                page += ".TP\n\(line)\n\(escaped(option.help))\n"
            }
            if !spec.examples.isEmpty {
                page += ".PP\nExamples:\n.RS\n.nf\n" + spec.examples.map { escaped($0) + "\n" }.joined() + ".fi\n.RE\n"
            }
        }
        page += """
            .SH GLOBAL OPTIONS
            .TP
            .B \\-\\-help
            Show help (also \\fBpipeline help\\fR \\fIcommand\\fR).
            .TP
            .B \\-\\-version
            Print the version.
            .TP
            .BI \\-\\-color " WHEN"
            auto (on a terminal, unless NO_COLOR is set or TERM=dumb), always or never.
            .SH ENVIRONMENT
            .TP
            .B TRANSLOADIT_KEY, TRANSLOADIT_SECRET
            The Auth Key and Secret, for endpoints that check signatures.
            .TP
            .B TRANSLOADIT_ENDPOINT
            The Assembly API for manifests that name no \\fBendpoint\\fR (default: the hosted service).
            .TP
            .B SSL_CERT_FILE, SSL_CERT_DIR, CURL_CA_BUNDLE
            Certificate authorities to trust for HTTPS (also \\fB\\-\\-ca\\-cert\\fR).
            .TP
            .B NO_COLOR
            When set and not empty, no colours unless \\fB\\-\\-color always\\fR.
            .TP
            .B TERM
            \\fBdumb\\fR turns colours off, as \\fBNO_COLOR\\fR does.
            .TP
            .B PIPELINE_SHARD_INDEX, PIPELINE_SHARD_TOTAL
            This job's shard (1\\-based) and the number of shards, for \\fB\\-\\-shard auto\\fR on a CI not listed below.
            .TP
            .B CI_NODE_INDEX, CI_NODE_TOTAL, CIRCLE_NODE_INDEX, CIRCLE_NODE_TOTAL, BUILDKITE_PARALLEL_JOB, BUILDKITE_PARALLEL_JOB_COUNT, JOB_COMPLETION_INDEX
            The shard of a GitLab, CircleCI or Buildkite parallel job, or of a Kubernetes indexed Job, read by \\fB\\-\\-shard auto\\fR.
            .TP
            .B GITHUB_ACTIONS
            \\fBtrue\\fR: problems are also written as GitHub Actions annotations.
            .TP
            .B AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY
            The bucket's key and secret for \\fBserve \\-\\-store\\fR (engines sharing their files).
            .TP
            .B ACTIONS_ID_TOKEN_REQUEST_URL, ACTIONS_ID_TOKEN_REQUEST_TOKEN
            Where a GitHub Actions job asks for its identity token, sent to a signer instead of a stored credential (\\fBauth.signer.token: {oidc: github}\\fR).
            .SH EXIT STATUS
            0 success; 1 the work failed (invalid manifest, policy violation, unreadable file); 2 \\fBdiff \\-\\-exit\\-code\\fR found changes;
            64 usage error; 130 \\fBrun\\fR interrupted (state is saved, the same command resumes).
            .SH FILES
            .TP
            .I .pipeline/
            The workspace next to a manifest: the local engine's data, and per manifest (\\fImanifests/<name>/\\fR) its digests, run state and lock.
            .SH SEE ALSO
            The guides installed with the package in \\fI/usr/share/doc/pipeline/docs/\\fR (\\fBmanifest.md\\fR, \\fBrunning.md\\fR,
            \\fBci.md\\fR, \\fBsigner.md\\fR, \\fBengine.md\\fR, \\fBdeploy.md\\fR, \\fBsecurity.md\\fR) and the JSON Schemas in \\fI/usr/share/pipeline/schemas/\\fR;
            .BR git (1),
            .BR curl (1),
            .BR vips (1),
            .BR ffmpeg (1).

            """
        return page
    }

    /// Text safe in roff: backslashes doubled, hyphens as minus signs where they are options,
    /// and a leading dot or quote kept from being read as a request.
    private static func escaped(_ text: String) -> String {
        var result = text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        result = result.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : String(line)
        }.joined(separator: "\n")
        return result
    }
}
