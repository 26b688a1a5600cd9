/// How many connections are open, by what each is doing (closing ones are not counted).
public struct ConnectionCounts: Sendable, Equatable {
    /// Waiting for their first request head.
    public var awaitingHead = 0
    /// Keep-alive connections between requests.
    public var idle = 0
    /// Receiving a request body.
    public var receivingBody = 0
    /// With a request in and its answer under way.
    public var answering = 0
    /// Body bytes received so far by the connections receiving a body.
    public var bodyBytes: Int64 = 0

    /// Counts, all zero unless given.
    public init(awaitingHead: Int = 0, idle: Int = 0, receivingBody: Int = 0, answering: Int = 0, bodyBytes: Int64 = 0) {
        (self.awaitingHead, self.idle, self.receivingBody, self.answering, self.bodyBytes) = (awaitingHead, idle, receivingBody, answering, bodyBytes)
    }

    /// Every open connection.
    public var total: Int { awaitingHead + idle + receivingBody + answering }
}
