import APIClients
import HTTPClient

extension TemplateClient {
    /// A client for the run's endpoint, signed as the run signs (or the services of an engine in this process).
    public init(configuration: RunConfiguration, http: HTTPClient) {
        if let services = configuration.services {
            self.init(transport: services.templates)
            return
        }
        self.init(
            http: http, endpoint: configuration.endpoint, authKey: configuration.authKey, signer: configuration.signer, lifetime: configuration.lifetime,
            clock: configuration.serviceClock)
    }
}
