/// The projectors of the log itself, which every deployment runs. Each area's projectors are
/// listed by its area (`AreaCatalog` in the API target), which adds these.
public enum ProjectionCatalog {
    public static let infrastructure: [any Projector] = [
        StreamSummaryProjector(),
        OwnerActivityProjector(),
    ]

    /// The tables of the projectors an append keeps in its own statement (`Projector.fusion`):
    /// only the log's own projectors have one.
    static let fusedTables = infrastructure.filter { $0.fusion != nil }.flatMap(\.tables)

    public static func named(_ name: String, in projectors: [any Projector]) -> (any Projector)? {
        projectors.first { $0.name == name }
    }
}
