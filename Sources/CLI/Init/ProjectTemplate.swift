import Foundation
import YAML

/// What `pipeline init` writes for a kind of project: a commented manifest that runs at once on
/// the local engine, the policy it passes, a GitHub Actions workflow, and the extensions whose
/// files it processes (samples are made when the folder has none).
struct ProjectTemplate {
    enum Kind: String, CaseIterable {
        case images, media, documents
    }

    let kind: Kind
    let name: String
    /// Where inputs are looked for: `samples/` for the samples, else the whole folder.
    let usesSamples: Bool
    /// For media: whether the folder (or the samples) has video, and audio; a job is written only
    /// for files there are (a job without any fails `plan`).
    var hasVideo = true
    var hasAudio = true

    static let imageExtensions = ["png", "jpg", "jpeg", "webp", "gif", "tif", "tiff"]
    static let videoExtensions = ["mp4", "mov", "webm", "mkv", "avi"]
    static let audioExtensions = ["mp3", "wav", "ogg", "flac", "m4a"]

    /// The extensions a kind processes.
    static func extensions(of kind: Kind) -> [String] {
        switch kind {
        case .images: imageExtensions
        case .media: videoExtensions + audioExtensions
        case .documents: ["pdf"]
        }
    }

    /// The inputs of files with `extensions`: in `samples/`, or anywhere but the outputs.
    private func inputs(_ extensions: [String]) -> String {
        // The folder's own files come in both cases (a camera's IMG_0001.JPG); globs are case-sensitive.
        let extensions = usesSamples ? extensions : extensions + extensions.map { $0.uppercased() }
        let names = extensions.count == 1 ? "*.\(extensions[0])" : "*.{\(extensions.joined(separator: ","))}"
        let globs = usesSamples ? ["samples/" + names] : ["**/" + names, "!build/**", "!.pipeline/**", "!node_modules/**"]
        return YAMLText.flowSequence(globs)
    }

    /// The manifest; the folder's name goes in through YAMLText, as data.
    var manifest: String {
        let header = """
            \(YAMLText.comment("The \(kind.rawValue) of '\(name)', processed by pipeline (made by `pipeline init`)."))
            #
            #   pipeline validate pipeline.yml   # check this file
            #   pipeline plan pipeline.yml       # what would run (files, Assemblies, policy)
            #   pipeline run pipeline.yml        # run it: results in build/results.json, files in build/
            #
            # `endpoint: local` runs everything on this machine with the built-in engine, no account
            # needed. To use Transloadit, remove that line and export TRANSLOADIT_KEY and
            # TRANSLOADIT_SECRET (or sign through `pipeline signer`; see docs/signer.md).

            version: 1
            name: \(YAMLText.scalar(name))
            endpoint: local
            auth:
              key: ${TRANSLOADIT_KEY:-local-key}
              expires_in: 15m
            policy: policy.yml
            results: build/results.json

            assemblies:

            """
        switch kind {
        case .images:
            return header + """
                  thumbnails:
                    inputs: \(inputs(Self.imageExtensions))
                    batch: 10                      # files per Assembly
                    steps:
                      thumb:
                        robot: /image/resize
                        use: :original
                        width: 320
                        height: 240
                        resize_strategy: fit
                        strip: true                # no GPS position, camera or names in results; colours kept
                      small:
                        robot: /image/optimize     # lossless, never larger
                        use: thumb
                        result: true
                    download: build                # result files are copied to build/<step>/

                """
        case .media:
            return header + (hasVideo ? videoJob : "") + (hasVideo && hasAudio ? "\n" : "") + (hasAudio ? audioJob : "")
        case .documents:
            return header + """
                  documents:
                    inputs: \(inputs(["pdf"]))
                    batch: 5
                    steps:
                      pages:
                        robot: /document/thumbs
                        use: :original
                        width: 300
                        height: 300
                        format: png
                        result: true
                    download: build

                """
        }
    }

    private var videoJob: String {
        """
              videos:
                inputs: \(inputs(Self.videoExtensions))
                batch: 1
                steps:
                  web:
                    robot: /video/encode
                    use: :original
                    preset: web/mp4/720p
                    ffmpeg: {map_metadata: -1}   # no GPS position or names in results
                    result: true
                  poster:
                    robot: /video/thumbs
                    use: :original
                    count: 1
                    width: 320
                    result: true
                download: build

            """
    }

    private var audioJob: String {
        """
              audio:
                inputs: \(inputs(Self.audioExtensions))
                batch: 5
                steps:
                  listen:
                    robot: /audio/encode
                    use: :original
                    preset: mp3
                    result: true
                download: build

            """
    }

    var policy: String {
        let header = """
            \(YAMLText.comment("What the manifests of '\(name)' may ask for. `pipeline plan` checks plans against it; a"))
            # signing backend (`pipeline signer`) can enforce the same file on a server.
            version: 1
            max_expires_in: 1h
            limits:
              file_size: 2GB
            robots:

            """
        switch kind {
        case .images:
            return header + """
                  /image/resize:
                    width: {type: integer, min: 1, max: 4000}
                    height: {type: integer, min: 1, max: 4000}
                    resize_strategy: {enum: [fit, fillcrop, crop, pad, stretch]}
                    strip: {type: boolean}
                    result: {type: boolean}
                  /image/optimize:
                    result: {type: boolean}

                """
        case .media:
            let video = """
                  /video/encode:
                    preset: {enum: [web/mp4/720p, web/mp4/1080p, webm, iphone, ipad]}
                    ffmpeg: {enum: [{map_metadata: -1}]}
                    result: {type: boolean}
                  /video/thumbs:
                    count: {type: integer, min: 1, max: 20}
                    width: {type: integer, min: 1, max: 1920}
                    result: {type: boolean}

                """
            let audio = """
                  /audio/encode:
                    preset: {enum: [mp3, aac, ogg, opus, flac]}
                    result: {type: boolean}

                """
            return header + (hasVideo ? video : "") + (hasAudio ? audio : "")
        case .documents:
            return header + """
                  /document/thumbs:
                    width: {type: integer, min: 1, max: 2000}
                    height: {type: integer, min: 1, max: 2000}
                    format: {enum: [png, jpg]}
                    result: {type: boolean}

                """
        }
    }

    static let workflow = """
        # Plans every pull request (the plan goes to the job's summary) and runs the manifest on main.
        # The pipeline action puts pipeline on the runner's PATH (point YOUR-ORG/pipeline at the
        # repository that publishes it, your fork or copy of pipeline, at a release tag): it builds the action's own source, or, much faster, installs
        # a release's .deb given as `deb-url` (with its `sha256` from the release's SHA256SUMS). For the
        # hosted service, remove `endpoint: local` from pipeline.yml, set `engine-tools: false` (the
        # local engine's tools are not needed then), and add TRANSLOADIT_KEY as a variable and
        # TRANSLOADIT_SECRET as a secret (or use a signer with an identity token and no secret at all;
        # see docs/ci.md).
        name: pipeline
        on:
          pull_request:
          push:
            branches: [main]
        permissions:
          contents: read
        jobs:
          plan:
            if: github.event_name == 'pull_request'
            runs-on: ubuntu-latest
            steps:
              - uses: actions/checkout@v4
              # Planning needs the runner only, not the local engine's tools.
              - uses: YOUR-ORG/pipeline@v1
                with: {engine-tools: false}
              # The newest state the run job saved on main, so the plan says what is new since (read
              # only: a pull request never saves a cache).
              - uses: actions/cache/restore@v4
                with:
                  path: |
                    .pipeline/
                    build/results.json
                  key: pipeline-state-newest
                  restore-keys: pipeline-state-
              - run: pipeline validate pipeline.yml
              - run: pipeline plan pipeline.yml --format markdown >> "$GITHUB_STEP_SUMMARY"
          run:
            if: github.event_name == 'push'
            runs-on: ubuntu-latest
            steps:
              - uses: actions/checkout@v4
              - uses: YOUR-ORG/pipeline@v1
              # Runs are incremental: what the last run completed is not processed again. No cache is
              # named pipeline-state-newest, so the newest one whose key starts with pipeline-state- is
              # restored.
              - uses: actions/cache/restore@v4
                with:
                  path: |
                    .pipeline/
                    build/results.json
                  key: pipeline-state-newest
                  restore-keys: pipeline-state-
              - run: pipeline run pipeline.yml
                env:
                  TRANSLOADIT_KEY: ${{ vars.TRANSLOADIT_KEY }}
                  TRANSLOADIT_SECRET: ${{ secrets.TRANSLOADIT_SECRET }}
              # Saved also when the run failed or was canceled, so the Assemblies it finished are not
              # made again. The key is a hash of the state: a new state is a new cache, and the same
              # state is not saved twice (the step only warns then).
              - uses: actions/cache/save@v4
                if: always()
                with:
                  path: |
                    .pipeline/
                    build/results.json
                  key: pipeline-state-${{ hashFiles('build/results.json', '.pipeline/manifests/**') }}
              # One HTML page of the run (each source beside its results), linked from the summary.
              - run: |
                  pipeline report pipeline.yml
                  echo "Report: build/report.html in the [results artifact](${{ github.server_url }}/${{ github.repository }}/actions/runs/${{ github.run_id }})" >> "$GITHUB_STEP_SUMMARY"
              - uses: actions/upload-artifact@v4
                with: {name: results, path: build/}

        """
}
