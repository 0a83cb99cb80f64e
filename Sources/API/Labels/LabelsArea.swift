import Domain
import Hummingbird
import Projections

/// The server's words (status labels, badge labels, metric and component names) for clients
/// that build their own screens: `GET /api/v1/labels?lang=`. No account needed: they are the
/// same for everyone.
public struct LabelsArea: Area {
    public static let name = "Labels"
    public static let projectors: [any Projector] = []
    public static let openAPIPart = "labels"

    public init(_ context: AreaContext) {}

    public func register(on api: RouterGroup<AppRequestContext>) {
        api.get("labels") { request, _ in
            let language = Language.resolve(query: request.query("lang"), acceptLanguage: request.headers[.acceptLanguage], userLanguage: nil)
            return LabelsDTO(lang: language.rawValue, labels: LabelCatalogue.labels(language))
        }
    }
}
