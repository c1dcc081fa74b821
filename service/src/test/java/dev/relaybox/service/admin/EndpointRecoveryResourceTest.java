package dev.relaybox.service.admin;

import static dev.relaybox.service.api.ResourceTests.ADMIN_TOKEN;
import static dev.relaybox.service.api.ResourceTests.PRODUCER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.service.api.ResourceTests;
import dev.relaybox.service.api.ResourceTests.Answer;
import dev.relaybox.service.recovery.DeadLetterEdits;
import dev.relaybox.service.recovery.DeadLetterReplay;
import dev.relaybox.service.recovery.EndpointRecovery;
import dev.relaybox.service.recovery.PayloadSchemas;
import dev.relaybox.store.DeadLetterSource;
import dev.relaybox.store.DeadLetterStore;
import dev.relaybox.store.EndpointStore;
import dev.relaybox.store.TestDatabase;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.dropwizard.testing.junit5.ResourceExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code POST /admin/endpoints/{id}/recover} against the real store: its batches, and every refusal. */
@ExtendWith(DropwizardExtensionsSupport.class)
class EndpointRecoveryResourceTest {
    static final Jdbi JDBI = TestDatabase.fresh();
    static final AtomicInteger DISPATCHER_WAKE_UPS = new AtomicInteger();
    static final ResourceExtension RESOURCES =
            ResourceTests.extension(new EndpointRecoveryResource(new EndpointRecovery(
                    JDBI,
                    new DeadLetterReplay(
                            JDBI,
                            DISPATCHER_WAKE_UPS::incrementAndGet,
                            new DeadLetterEdits(Map.of(), 256 * 1024, PayloadSchemas.ACCEPT_ALL)))));

    @Test
    void takesTheWindowInBatchesAndLeavesOtherEndpointsAndEarlierFailuresOpen() {
        Instant since = Instant.now().minus(Duration.ofHours(1));
        UUID endpoint = endpoint("batched", true);
        UUID other = endpoint("other", true);
        UUID earlier = deadLetteredDelivery(endpoint, since.minusSeconds(60));
        for (int i = 0; i < 3; i++) {
            deadLetteredDelivery(endpoint, since.plusSeconds(i));
        }
        UUID otherEndpoints = deadLetteredDelivery(other, since.plusSeconds(10));
        int wakeUps = DISPATCHER_WAKE_UPS.get();

        Answer first = recover(endpoint, Map.of("since", since.toString(), "limit", 2));
        assertThat(first.status()).isEqualTo(200);
        assertThat(first.body().path("recovered").asInt()).isEqualTo(2);
        assertThat(first.body().path("remaining").asInt()).isEqualTo(1);
        assertThat(DISPATCHER_WAKE_UPS.get()).isEqualTo(wakeUps + 1);
        assertThat(recover(endpoint, Map.of("since", since.toString()))
                        .body()
                        .path("recovered")
                        .asInt())
                .isEqualTo(1);
        Answer nothingLeft = recover(endpoint, Map.of("since", since.toString()));
        assertThat(nothingLeft.body().path("recovered").asInt()).isZero();
        assertThat(nothingLeft.body().path("remaining").asInt()).isZero();

        assertThat(statusOf(earlier)).isEqualTo("DEAD_LETTERED");
        assertThat(statusOf(otherEndpoints)).isEqualTo("DEAD_LETTERED");
        int pending = JDBI.withHandle(h -> h.createQuery(
                        "SELECT count(*) FROM deliveries WHERE endpoint_id = :endpoint AND status = 'PENDING'")
                .bind("endpoint", endpoint)
                .mapTo(int.class)
                .one());
        assertThat(pending).isEqualTo(3);
    }

    @Test
    void aDisabledEndpointsFailuresAreCountedAndLeftOpen() {
        UUID disabled = endpoint("disabled", false);
        UUID delivery = deadLetteredDelivery(disabled, Instant.now().minusSeconds(5));

        Answer answer =
                recover(disabled, Map.of("since", Instant.now().minusSeconds(60).toString()));

        assertThat(answer.body().path("recovered").asInt()).isZero();
        assertThat(answer.body().path("skippedDisabledEndpoint").asInt()).isEqualTo(1);
        assertThat(statusOf(delivery)).isEqualTo("DEAD_LETTERED");
    }

    @Test
    void refusesAnUnknownEndpointAMissingBadOrFutureSinceAndNonAdmins() {
        UUID endpoint = endpoint("refusing", true);
        assertError(recover(UUID.randomUUID(), Map.of("since", Instant.now().toString())), 404, "endpoint_not_found");
        assertError(recover(endpoint, Map.of()), 400, "invalid_since");
        assertError(recover(endpoint, "null"), 400, "invalid_since");
        assertError(recover(endpoint, Map.of("since", "yesterday")), 400, "invalid_since");
        assertError(recover(endpoint, Map.of("since", "2026-01-31")), 400, "invalid_since");
        assertError(
                recover(
                        endpoint,
                        Map.of("since", Instant.now().plusSeconds(3600).toString())),
                400,
                "invalid_since");
        assertError(
                recover(endpoint, Map.of("since", Instant.now().toString(), "limit", 1001)), 400, "invalid_request");
        assertError(
                ResourceTests.call(
                        RESOURCES,
                        "POST",
                        "/admin/endpoints/" + endpoint + "/recover",
                        PRODUCER_TOKEN,
                        Map.of("since", Instant.now().toString())),
                403,
                "forbidden");
    }

    private static UUID endpoint(String name, boolean enabled) {
        return JDBI.withExtension(EndpointStore.class, store -> {
            UUID id = store.insert(
                            name, "https://example.com/" + name, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", List.of("*"))
                    .orElseThrow()
                    .id();
            store.setEnabled(id, enabled, enabled ? null : "maintenance");
            return id;
        });
    }

    /** A delivery dead-lettered at {@code at}, with its open dead letter. */
    private static UUID deadLetteredDelivery(UUID endpointId, Instant at) {
        return JDBI.inTransaction(h -> {
            UUID outboxId = h.createQuery("""
                            INSERT INTO outbox_events (aggregate_type, aggregate_id, event_type, payload, status)
                            VALUES ('order', :id, 'order.shipped', '{}', 'PROCESSED') RETURNING id""")
                    .bind("id", UUID.randomUUID().toString())
                    .mapTo(UUID.class)
                    .one();
            UUID deliveryId = h.createQuery("""
                            INSERT INTO deliveries (outbox_id, endpoint_id, status)
                            VALUES (:outbox, :endpoint, 'DEAD_LETTERED') RETURNING id""")
                    .bind("outbox", outboxId)
                    .bind("endpoint", endpointId)
                    .mapTo(UUID.class)
                    .one();
            UUID deadLetter = h.attach(DeadLetterStore.class)
                    .insertOpen(DeadLetterSource.OUTBOX, deliveryId, "gave up", "503", 4)
                    .orElseThrow();
            h.execute("UPDATE dead_letters SET created_at = ? WHERE id = ?", at, deadLetter);
            return deliveryId;
        });
    }

    private static String statusOf(UUID deliveryId) {
        return JDBI.withHandle(h -> h.createQuery("SELECT status FROM deliveries WHERE id = :id")
                .bind("id", deliveryId)
                .mapTo(String.class)
                .one());
    }

    private static Answer recover(UUID endpointId, Object body) {
        return ResourceTests.call(RESOURCES, "POST", "/admin/endpoints/" + endpointId + "/recover", ADMIN_TOKEN, body);
    }

    private static void assertError(Answer answer, int status, String error) {
        assertThat(answer.status()).as(answer.body().toString()).isEqualTo(status);
        assertThat(answer.error()).isEqualTo(error);
        assertThat(answer.body().path("reason").asText()).isNotBlank();
    }
}
