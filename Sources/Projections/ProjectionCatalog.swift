/// Every projector lifelog runs. Each area adds its own here.
public enum ProjectionCatalog {
    public static func all() -> [any Projector] {
        [
            StreamSummaryProjector(),
            OwnerActivityProjector(),
            AccountsProjector(),
            HabitsProjector(),
            TasksProjector(),
        ]
    }

    public static func named(_ name: String, in projectors: [any Projector] = all()) -> (any Projector)? {
        projectors.first { $0.name == name }
    }
}
