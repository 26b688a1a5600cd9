import CPostgres

extension PostgresConnection {
    /// Runs `body` in a transaction: BEGIN, then COMMIT when it returns; ROLLBACK when it throws
    /// (its error is rethrown), when a statement in it failed (even one whose error it caught),
    /// and when COMMIT fails. A serialization failure (SQLSTATE 40001) comes out as the
    /// `PostgresError` it was, for the caller to try again.
    @discardableResult
    @available(*, noasync, message: "blocks its thread")
    public func transaction<Value>(_ body: (PostgresConnection) throws -> Value) throws -> Value {
        guard try transactionStatus("BEGIN") == PIPELINE_PQ_TRANSACTION_IDLE else {
            throw PostgresError(
                kind: .statement, operation: "BEGIN", message: "a transaction is already open on this connection",
                hint: "run these statements in the open transaction instead of starting another", address: address.redacted)
        }
        try execute("BEGIN")
        let value: Value
        do {
            value = try body(self)
        } catch {
            rollBack()
            throw error
        }
        if try transactionStatus("COMMIT") == PIPELINE_PQ_TRANSACTION_IN_ERROR {
            rollBack()
            throw PostgresError(
                kind: .statement, operation: "COMMIT", message: "a statement in the transaction failed, so it was rolled back",
                hint: "let a statement's error leave the transaction's body instead of catching it there", address: address.redacted)
        }
        do {
            try execute("COMMIT")
        } catch {
            rollBack()
            throw error
        }
        return value
    }

    /// Ends the open transaction, if any, so a connection given back to its pool holds none;
    /// whether the connection can be used again.
    func endOpenTransaction() -> Bool {
        guard !isBroken, let status = try? transactionStatus("ROLLBACK") else { return false }  // closed meanwhile: not usable
        if status == PIPELINE_PQ_TRANSACTION_IDLE { return true }
        rollBack()
        return !isBroken && (try? transactionStatus("ROLLBACK")) == PIPELINE_PQ_TRANSACTION_IDLE  // closed meanwhile: not usable
    }

    /// Rolls back what is open. Its own failure is no news: the error in hand says what went
    /// wrong, and a connection too broken to roll back has ended its transaction with it.
    private func rollBack() {
        _ = try? execute("ROLLBACK")
    }

    /// libpq's transaction status (PIPELINE_PQ_TRANSACTION_*), asked without a round trip.
    private func transactionStatus(_ operation: String) throws(PostgresError) -> Int {
        try withHandle(operation) { Int(pipeline_pq_transaction_status($0)) }
    }
}
