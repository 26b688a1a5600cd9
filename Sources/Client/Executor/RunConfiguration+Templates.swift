import APIClients
import HTTPClient

extension TemplateClient {
    /// A client for the run's endpoint, signed as the run signs.
    public init(configuration: RunConfiguration, http: HTTPClient) {
        self.init(
            http: http, endpoint: configuration.endpoint, authKey: configuration.authKey, signer: configuration.signer, lifetime: configuration.lifetime,
            clock: configuration.serviceClock)
    }
}
