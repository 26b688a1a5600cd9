import APIClients
import Basics
import Foundation
import Wire

/// The Assembly API for a caller in the engine's process: the same creation, checks and
/// lifecycle as over HTTP, with no request in between. Assemblies are asked about by their id
/// (no URL is made or parsed for them), results are named by their paths; a status wait suspends
/// the caller until the Assembly moves on.
struct InProcessAssemblies: AssemblyService {
    let api: AssemblyAPI
    let dataDirectory: String

    func create(id: String, params: String, signature: String?, expectedUploads: Int) async throws(AssemblyClient.Failure) -> AssemblyState {
        switch api.create(id: id, params: params, signature: signature, expectedUploads: expectedUploads, client: Self.client) {
        case .success(let record): return try state(record)
        case .failure(let refusal): throw refusal.failure
        }
    }

    func status(_ assembly: AssemblyReference, wait: Int?) async throws(AssemblyClient.Failure) -> AssemblyState {
        let id = try Self.id(of: assembly)
        guard let current = api.store.get(id) else { throw APIRefusal.assemblyNotFound(id).failure }
        if let wait, !current.isTerminal {
            let store = api.store, phase = current.phase
            await store.signals.wait(for: id, timeout: .seconds(min(wait, StatusWait.longest))) { store.get(id)?.phase == phase }
        }
        guard let record = api.store.reported(id) else { throw APIRefusal.assemblyNotFound(id).failure }
        return try state(record)
    }

    func cancel(_ assembly: AssemblyReference) async throws(AssemblyClient.Failure) -> AssemblyState {
        let id = try Self.id(of: assembly)
        guard let record = api.cancel(id) else { throw APIRefusal.assemblyNotFound(id).failure }
        return try state(record)
    }

    /// What a client reads of `record`; an Assembly that failed is a failure, as the HTTP client
    /// reads a status with an `error`.
    private func state(_ record: AssemblyRecord) throws(AssemblyClient.Failure) -> AssemblyState {
        var state = AssemblyState(AssemblyStatus.document(record, tusPath: LocalEngine.tusPath, addresses: .files(dataDirectory: dataDirectory)))
        state.statusWait = StatusWait.longest
        // Asked about again by its id: its record's `file://` URL is what results keep, never what is asked.
        state.reference = AssemblyReference(id: record.id)
        if let error = state.error {
            throw AssemblyClient.Failure(code: error, message: state.message ?? "", httpStatus: 200)
        }
        return state
    }

    /// The id of `assembly`, when it is one (a caller may have read it from a file).
    static func id(of assembly: AssemblyReference) throws(AssemblyClient.Failure) -> String {
        guard AssemblyStore.isValidID(assembly.id) else { throw APIRefusal.invalidAssemblyID.failure }
        return assembly.id
    }

    /// How the engine's records name this client (`Transloadit-Client` over HTTP).
    static let client = "pipeline-in-process"
}

extension APIRefusal {
    /// The refusal as a client in the engine's process meets it: as the HTTP client would read its answer.
    var failure: AssemblyClient.Failure {
        AssemblyClient.Failure(code: code, message: message, retryIn: retryIn, isTransient: status >= 500 || status == 429, httpStatus: status)
    }
}
