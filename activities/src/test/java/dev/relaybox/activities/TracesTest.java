package dev.relaybox.activities;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.producer.Outbox;
import dev.relaybox.producer.OutboxEvent;
import dev.relaybox.store.TestDatabase;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.trace.Span;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

class TracesTest {
    static final String PRODUCERS = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    @Test
    void withNoSdkInstalledAProducersTraceparentPassesThroughUnchanged() {
        GlobalOpenTelemetry.resetForTest();

        Span attempt = Traces.tracer()
                .spanBuilder("webhook shop")
                .setParent(Traces.parent(PRODUCERS))
                .startSpan();

        assertThat(Traces.traceparent(attempt)).isEqualTo(PRODUCERS);
        assertThat(Traces.traceparent(Traces.tracer()
                        .spanBuilder("webhook shop")
                        .setParent(Traces.parent("00-not-a-trace-01"))
                        .startSpan()))
                .as("a malformed traceparent names no trace")
                .isNull();
        assertThat(Traces.traceparent(Traces.tracer()
                        .spanBuilder("webhook shop")
                        .setParent(Traces.parent(null))
                        .startSpan()))
                .isNull();
    }

    @Test
    void theProducerLibraryStoresTheTraceparentWithTheRowOnEveryPath() {
        Jdbi jdbi = TestDatabase.fresh();
        jdbi.useHandle(h -> h.execute("INSERT INTO tenants (key, name) VALUES ('acme', 'Acme')"));
        OutboxEvent event = new OutboxEvent("order.paid", "order", "42", "{}").inTrace(PRODUCERS);

        UUID plain = jdbi.inTransaction(h -> Outbox.enqueue(h, event));
        UUID tenant = jdbi.inTransaction(h -> Outbox.enqueue(h, event.forTenant("acme")));
        UUID keyed = jdbi.inTransaction(
                h -> Outbox.enqueueIdempotent(h, event, "k-1", "hash").id());
        UUID tenantKeyed = jdbi.inTransaction(h -> Outbox.enqueueIdempotent(h, event.forTenant("acme"), "k-1", "hash")
                .id());
        UUID untraced = jdbi.inTransaction(h -> Outbox.enqueue(h, new OutboxEvent("order.paid", "order", "43", "{}")));

        for (UUID id : new UUID[] {plain, tenant, keyed, tenantKeyed}) {
            assertThat(traceparentOf(jdbi, id)).as("row %s", id).isEqualTo(PRODUCERS);
        }
        assertThat(traceparentOf(jdbi, untraced)).isNull();
        String tenantOfKeyed = jdbi.withHandle(h -> h.createQuery("SELECT tenant FROM outbox_events WHERE id = :id")
                .bind("id", tenantKeyed)
                .mapTo(String.class)
                .one());
        assertThat(tenantOfKeyed).isEqualTo("acme");
    }

    private static String traceparentOf(Jdbi jdbi, UUID id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT traceparent FROM outbox_events WHERE id = :id")
                .bind("id", id)
                .mapTo(String.class)
                .one());
    }
}
