/// An `error` code of the Assembly and Template APIs, as a value: the engine answers with
/// these, the runner compares what it receives with them (`failure.code == .rateLimitReached`);
/// no other file spells one. Grouped by what they refuse.
public struct APIErrorCode: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The code as it travels.
    public let rawValue: String

    private init(_ rawValue: String) { self.rawValue = rawValue }

    /// A code as a server sent it (which may be one no constant here names).
    public init(received: String) { rawValue = received }

    public var description: String { rawValue }

    /// Decodes the code from its string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the code as its string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Too many Assemblies (or requests) for now; `info.retryIn` says when to try again.
    public static let rateLimitReached = APIErrorCode("RATE_LIMIT_REACHED")
    /// Too many status requests for now; also worth waiting for.
    public static let statusRateLimitReached = APIErrorCode("ASSEMBLY_STATUS_FETCHING_RATE_LIMIT_REACHED")
    /// An Assembly with the requested id exists (a create whose answer was lost made it).
    public static let assemblyIDTaken = APIErrorCode("DO_NOT_REUSE_ASSEMBLY_IDS")
    /// An Assembly id that is not 32 lowercase hexadecimal characters.
    public static let invalidAssemblyID = APIErrorCode("INVALID_ASSEMBLY_ID")
    /// No Assembly has the id asked about.
    public static let assemblyNotFound = APIErrorCode("ASSEMBLY_NOT_FOUND")
    /// A step stopped because its Assembly was canceled.
    public static let assemblyCanceled = APIErrorCode("ASSEMBLY_CANCELED")
    /// The signature's `auth.expires` is past, by the server's clock.
    public static let authExpired = APIErrorCode("AUTH_EXPIRED")
    /// An Assembly that cannot run again (still going, or its files are gone).
    public static let cannotBeReplayed = APIErrorCode("ASSEMBLY_CANNOT_BE_REPLAYED")
    /// The server could not keep what it was sent (its disk).
    public static let storageError = APIErrorCode("SERVER_STORAGE_ERROR")

    // — Requests
    /// A request without `params`.
    public static let noParamsField = APIErrorCode("NO_PARAMS_FIELD")
    /// `params` that are not a JSON object.
    public static let invalidParamsField = APIErrorCode("INVALID_PARAMS_FIELD")
    /// `params` with a key twice in one object.
    public static let duplicateKey = APIErrorCode("DUPLICATE_KEY")
    /// A request to an engine with credentials, unsigned.
    public static let noSignatureField = APIErrorCode("NO_SIGNATURE_FIELD")
    /// A signature that does not match the params.
    public static let invalidSignature = APIErrorCode("INVALID_SIGNATURE")
    /// `auth.key` is not the server's Auth Key.
    public static let unknownAuthKey = APIErrorCode("GET_ACCOUNT_UNKNOWN_AUTH_KEY")
    /// Signed params without `auth.expires`.
    public static let noAuthExpires = APIErrorCode("NO_AUTH_EXPIRES_PARAMETER")
    /// An `auth.expires` that is not a date.
    public static let invalidAuthExpires = APIErrorCode("INVALID_AUTH_EXPIRES_PARAMETER")
    /// A signature used before.
    public static let signatureReused = APIErrorCode("SIGNATURE_REUSE_DETECTED")
    /// Instructions the server's policy does not allow.
    public static let policyViolation = APIErrorCode("POLICY_VIOLATION")
    /// No such route.
    public static let notFound = APIErrorCode("NOT_FOUND")
    /// The server's disk has no room for the request.
    public static let storageFull = APIErrorCode("SERVER_STORAGE_FULL")
    /// The server failed to keep what it was sent.
    public static let serverError = APIErrorCode("SERVER_500")

    // — Assemblies
    /// Steps that cannot be run (none, a cycle, an unknown robot).
    public static let invalidSteps = APIErrorCode("ASSEMBLY_INVALID_STEPS")
    /// An expected upload count that is not a whole number.
    public static let invalidExpectedUploads = APIErrorCode("ASSEMBLY_INVALID_NUM_EXPECTED_UPLOAD_FILES_PARAM")

    // — Templates
    /// No Template has the id asked about.
    public static let templateNotFound = APIErrorCode("TEMPLATE_NOT_FOUND")
    /// A Template of that name exists.
    public static let templateNameTaken = APIErrorCode("TEMPLATE_NAME_TAKEN")
    /// The Template does not let requests replace its steps.
    public static let templateDeniesStepsOverride = APIErrorCode("TEMPLATE_DENIES_STEPS_OVERRIDE")
    /// A Template whose content is not valid.
    public static let invalidTemplate = APIErrorCode("INVALID_TEMPLATE")
    /// A Template name that is not valid.
    public static let invalidTemplateName = APIErrorCode("INVALID_TEMPLATE_NAME")
    /// A Template id that is not valid.
    public static let invalidTemplateID = APIErrorCode("INVALID_TEMPLATE_ID")
    /// More Templates than the server keeps.
    public static let tooManyTemplates = APIErrorCode("TOO_MANY_TEMPLATES")

    // — Steps
    /// A step's option with a value the robot cannot use.
    public static let invalidStepParameter = APIErrorCode("INVALID_STEP_PARAMETER")
    /// A robot's tool failed.
    public static let internalCommandError = APIErrorCode("INTERNAL_COMMAND_ERROR")
    /// An image that cannot be resized.
    public static let imageResizeError = APIErrorCode("IMAGE_RESIZE_ERROR")
    /// An image beyond the pixels a robot takes.
    public static let imageTooLarge = APIErrorCode("IMAGE_TOO_LARGE")
    /// An image that cannot be optimized.
    public static let imageOptimizeError = APIErrorCode("IMAGE_OPTIMIZE_ERROR")
    /// A document whose pages cannot be rendered.
    public static let documentThumbsError = APIErrorCode("DOCUMENT_THUMBS_ERROR")
    /// A file that cannot be imported.
    public static let importFileError = APIErrorCode("IMPORT_FILE_ERROR")
    /// An archive that cannot be unpacked.
    public static let fileDecompressError = APIErrorCode("FILE_DECOMPRESS_ERROR")
    /// Files that cannot be archived.
    public static let fileCompressError = APIErrorCode("FILE_COMPRESS_ERROR")
    /// Media longer than a robot takes.
    public static let fileTooLong = APIErrorCode("FILE_TOO_LONG")
    /// A file whose facts cannot be read.
    public static let fileMetaDataError = APIErrorCode("FILE_META_DATA_ERROR")
    /// A file a filter step declined, with `error_on_decline`.
    public static let fileFilterDeclinedFile = APIErrorCode("FILE_FILTER_DECLINED_FILE")
    /// A video whose frames cannot be taken.
    public static let videoThumbsError = APIErrorCode("VIDEO_THUMBS_ERROR")
    /// A video encode's options that do not fit together.
    public static let videoEncodeValidation = APIErrorCode("VIDEO_ENCODE_VALIDATION")
    /// An audio encode's options that do not fit together.
    public static let audioEncodeValidation = APIErrorCode("AUDIO_ENCODE_VALIDATION")
    /// Audio whose waveform cannot be drawn.
    public static let audioWaveformError = APIErrorCode("AUDIO_WAVEFORM_ERROR")
    /// Metadata that cannot be written.
    public static let metaWriteError = APIErrorCode("META_WRITE_ERROR")
    /// Results that cannot be stored.
    public static let storeError = APIErrorCode("STORE_ERROR")

    // — The runner's own outcomes (written to results.json and said to the user, never sent)
    /// The run stopped (a signal, or the run's end) before the Assembly ended; the next run resumes it.
    public static let interrupted = APIErrorCode("INTERRUPTED")
    /// An upload failed for good.
    public static let uploadFailed = APIErrorCode("UPLOAD_FAILED")
    /// The params could not be signed (the signing backend refused or failed).
    public static let signingFailed = APIErrorCode("SIGNING_FAILED")
    /// A source file changed between planning and sending.
    public static let fileChanged = APIErrorCode("FILE_CHANGED")
    /// Anything else that stopped an Assembly's run.
    public static let runFailed = APIErrorCode("RUN_FAILED")
    /// The Assembly waited for uploads the run could not send.
    public static let uploadsMissing = APIErrorCode("ASSEMBLY_UPLOADS_MISSING")
    /// The run ended before this Assembly began.
    public static let notStarted = APIErrorCode("NOT_STARTED")
    /// A status without the tus URL its uploads need.
    public static let noTusURL = APIErrorCode("NO_TUS_URL")
    /// The run's `--timeout` came first.
    public static let runTimeout = APIErrorCode("RUN_TIMEOUT")
    /// A request that failed in transport.
    public static let network = APIErrorCode("NETWORK")
    /// A request that got no connection at all (nothing listens, no such host).
    public static let cannotConnect = APIErrorCode("CANNOT_CONNECT")
    /// A failed status that names no code.
    public static let unknown = APIErrorCode("UNKNOWN")
    /// A Template answer without the Template.
    public static let noTemplate = APIErrorCode("NO_TEMPLATE")
    /// A Template answer without a valid Template id.
    public static let noTemplateID = APIErrorCode("NO_TEMPLATE_ID")

    /// `HTTP_<status>`: an answer without a status document.
    public static func http(_ status: Int) -> APIErrorCode { APIErrorCode("HTTP_\(status)") }

    /// The status of an `HTTP_<status>` code; nil for any other.
    public var httpStatus: Int? { rawValue.hasPrefix("HTTP_") ? Int(rawValue.dropFirst(5)) : nil }
}

/// Whether the code `text` (as received) is `code`.
public func == (text: String, code: APIErrorCode) -> Bool { text == code.rawValue }

/// Whether the code `text` (as received) is `code`, for optional codes.
public func == (text: String?, code: APIErrorCode) -> Bool { text == code.rawValue }
