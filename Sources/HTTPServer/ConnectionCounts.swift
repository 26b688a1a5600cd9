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

    /// Counts, all zero unless given.
    public init(awaitingHead: Int = 0, idle: Int = 0, receivingBody: Int = 0, answering: Int = 0) {
        (self.awaitingHead, self.idle, self.receivingBody, self.answering) = (awaitingHead, idle, receivingBody, answering)
    }

    /// Every open connection.
    public var total: Int { awaitingHead + idle + receivingBody + answering }
}
