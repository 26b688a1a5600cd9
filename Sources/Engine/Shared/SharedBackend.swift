import Basics
import Foundation
import HTTPClient
import Postgres

/// Engines that share their state in Postgres and their files in a bucket (`serve --state
/// postgres://… --store s3://…`): any of them answers any request, and an Assembly whose engine
/// died is run by another once its lease has passed.
public struct SharedBackend: Sendable {
    /// The database (`postgres://USER:PASSWORD@HOST:PORT/DATABASE`).
    public var state: String
    /// The bucket (`s3://BUCKET/PREFIX?endpoint=URL&region=NAME`).
    public var store: String
    /// The bucket's access key.
    public var storeKey: String
    /// The bucket's secret (kept in memory only).
    public var storeSecret: String
    /// How long a claim on an Assembly's run (and on an upload being written) holds unrenewed.
    public var lease: Duration = .seconds(10)
    /// Connections each engine keeps to the database.
    public var connections = 8

    /// Engines sharing `state` and `store`, the bucket signed for with `storeKey` and `storeSecret`.
    public init(state: String, store: String, storeKey: String, storeSecret: String) {
        (self.state, self.store, self.storeKey, self.storeSecret) = (state, store, storeKey, storeSecret)
    }

    /// What an engine opens from these settings.
    struct Opened: Sendable {
        let state: SharedState
        let files: BucketFiles
        let uploads: SharedUploads
        let queue: SharedRunQueue
    }

    /// Connects to the database (bringing its schema up to date) and the bucket, for an engine
    /// whose data folder (its local copies) is `data`.
    func open(data: String, maximumUpload: Int64, warn: @escaping @Sendable (String) -> Void) throws -> Opened {
        let address: PostgresAddress
        let bucket: BucketAddress
        do { address = try PostgresAddress(parsing: state) } catch { throw SharedBackendError(message: "--state: \(error)") }
        do { bucket = try BucketAddress(parsing: store) } catch { throw SharedBackendError(message: "--store: \(error)") }
        let shared: SharedState
        do { shared = try SharedState(address: address, connections: connections, warn: warn) } catch {
            throw SharedBackendError(message: "the database at \(address.redacted) cannot be used: \(error)")
        }
        let client = S3Client(bucket: bucket.bucket, credentials: S3Credentials(key: storeKey, secret: storeSecret), http: HTTPClient())
        let files = BucketFiles(client: client, prefix: bucket.prefix, root: data)
        let uploads = SharedUploads(state: shared, client: client, prefix: bucket.prefix, root: data, maximumSize: maximumUpload, lease: lease, warn: warn)
        return Opened(state: shared, files: files, uploads: uploads, queue: SharedRunQueue(state: shared, lease: lease, warn: warn))
    }
}

/// Why shared state or files could not be opened.
public struct SharedBackendError: Error, CustomStringConvertible {
    /// What went wrong and how to fix it.
    public let message: String
    /// The message.
    public var description: String { message }
}
