import EventStore
import Hummingbird
import Logging
import PostgresNIO
import Projections
import Prometheus

/// `/metrics` in the Prometheus text format: HTTP metrics recorded by the middleware, plus
/// projector lag and log size read at scrape time.
struct MetricsRoutes {
    let client: PostgresClient
    let registry: PrometheusCollectorRegistry
    let projectors: [any Projector]

    func register(on router: Router<AppRequestContext>) {
        router.get("/metrics") { _, context in
            await refresh(logger: context.logger)
            var buffer: [UInt8] = []
            registry.emit(into: &buffer)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: buffer)))
        }
    }

    func refresh(logger: Logger) async {
        do {
            for status in try await ProjectorStatus.load(projectors, client: client, logger: logger) {
                registry.makeGauge(name: "lifelog_projector_lag_events", labels: [("projector", status.name)]).set(Double(status.lagEvents))
                registry.makeGauge(name: "lifelog_projector_lag_seconds", labels: [("projector", status.name)]).set(status.lagSeconds)
                registry.makeGauge(name: "lifelog_projector_dead_letters", labels: [("projector", status.name)]).set(Double(status.deadLetters))
            }
            let last = try await PostgresEventStore.lastGlobalPosition(client, logger: logger)
            registry.makeGauge(name: "lifelog_log_head_position").set(Double(last))
            registry.makeGauge(name: "lifelog_database_up").set(Double(1))
        } catch {
            registry.makeGauge(name: "lifelog_database_up").set(Double(0))
        }
    }
}
