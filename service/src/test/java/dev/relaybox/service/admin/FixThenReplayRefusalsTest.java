package dev.relaybox.service.admin;

import static dev.relaybox.service.api.ResourceTests.ADMIN_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.relaybox.service.api.ResourceTests;
import dev.relaybox.service.api.ResourceTests.Answer;
import dev.relaybox.service.auth.Caller;
import dev.relaybox.service.config.PartnerFactory;
import dev.relaybox.service.recovery.DeadLetterEdits;
import dev.relaybox.service.recovery.DeadLetterReplay;
import dev.relaybox.store.DeadLetterSource;
import dev.relaybox.store.DeadLetterStore;
import dev.relaybox.store.EndpointStore;
import dev.relaybox.store.TestDatabase;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.dropwizard.testing.junit5.ResourceExtension;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A replay with a corrected payload, against the real store: every refusal answers the one error shape and changes
 * nothing (the dead letter stays open, the payload and statuses as they were, no audit entry, no dispatch); an
 * accepted one replaces the payload, keeps the original and resolves the dead letter, all at once.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class FixThenReplayRefusalsTest {
    static final Jdbi JDBI = TestDatabase.fresh();
    static final AtomicInteger DISPATCHER_WAKE_UPS = new AtomicInteger();
    static final String ORIGINAL = "{\"amount\": 12, \"orderId\": \"4 2\"}";
    static final ResourceExtension RESOURCES = ResourceTests.extension(new AdminDeadLettersResource(
            JDBI,
            new TemporalLinks("http://temporal.test", "default", false),
            new DeadLetterReplay(
                    JDBI,
                    DISPATCHER_WAKE_UPS::incrementAndGet,
                    new DeadLetterEdits(
                            Map.of("shop", partner()),
                            200,
                            // Stands in for the event-type catalog: one rule, to show a schema's refusal is honoured.
                            (eventType, payload) -> payload.path("amount").isTextual()
                                    ? Optional.of(eventType + ": amount must be a number")
                                    : Optional.empty()))));

    /** A dead letter and the row it is about. */
    record Fixture(UUID deadLetterId, String table, UUID rowId) {}

    record Case(
            String name,
            Supplier<Fixture> fixture,
            Function<Fixture, String> path,
            Object body,
            int status,
            String error) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Case> refusals() {
        Map<String, Object> fixed = Map.of("amount", 12, "orderId", "42");
        return Stream.of(
                new Case(
                        "payload is a string",
                        settledOutbound(),
                        replay(),
                        Map.of("payload", "x", "reason", "r"),
                        400,
                        "invalid_request"),
                new Case(
                        "payload is an array",
                        settledOutbound(),
                        replay(),
                        Map.of("payload", List.of(1), "reason", "r"),
                        400,
                        "invalid_request"),
                new Case(
                        "payload is null",
                        settledOutbound(),
                        replay(),
                        "{\"payload\": null, \"reason\": \"r\"}",
                        400,
                        "invalid_request"),
                new Case(
                        "payload without a reason",
                        settledOutbound(),
                        replay(),
                        Map.of("payload", fixed),
                        400,
                        "invalid_request"),
                new Case(
                        "blank reason",
                        settledOutbound(),
                        replay(),
                        Map.of("payload", fixed, "reason", " "),
                        400,
                        "invalid_request"),
                new Case(
                        "reason without a payload",
                        settledOutbound(),
                        replay(),
                        Map.of("reason", "r"),
                        400,
                        "invalid_request"),
                new Case(
                        "misspelt payload",
                        settledOutbound(),
                        replay(),
                        Map.of("paylaod", fixed, "reason", "r"),
                        400,
                        "unknown_field"),
                new Case(
                        "payload jsonb cannot hold",
                        settledOutbound(),
                        replay(),
                        "{\"payload\": {\"note\": \"\\u0000\"}, \"reason\": \"r\"}",
                        400,
                        "invalid_json"),
                new Case(
                        "unknown dead letter",
                        settledOutbound(),
                        f -> "/admin/dead-letters/" + UUID.randomUUID() + "/replay",
                        Map.of("payload", fixed, "reason", "r"),
                        404,
                        "dead_letter_not_found"),
                new Case(
                        "not open any more",
                        FixThenReplayRefusalsTest::discardedOutbound,
                        replay(),
                        Map.of("payload", fixed, "reason", "r"),
                        409,
                        "already_resolved"),
                new Case(
                        "another delivery of the event still retrying",
                        FixThenReplayRefusalsTest::inFlightOutbound,
                        replay(),
                        Map.of("payload", fixed, "reason", "r"),
                        409,
                        "deliveries_in_flight"),
                new Case(
                        "endpoint disabled",
                        FixThenReplayRefusalsTest::disabledEndpointOutbound,
                        replay(),
                        Map.of("payload", fixed, "reason", "r"),
                        409,
                        "endpoint_disabled"),
                new Case(
                        "payload as stored",
                        settledOutbound(),
                        replay(),
                        Map.of("payload", Map.of("orderId", "4 2", "amount", 12), "reason", "r"),
                        422,
                        "payload_unchanged"),
                new Case(
                        "payload over the limit",
                        settledOutbound(),
                        replay(),
                        Map.of("payload", Map.of("note", "x".repeat(200)), "reason", "r"),
                        413,
                        "payload_too_large"),
                new Case(
                        "payload its schema refuses",
                        settledOutbound(),
                        replay(),
                        Map.of("payload", Map.of("amount", "twelve"), "reason", "r"),
                        422,
                        "invalid_payload"),
                new Case(
                        "inbound event id changed",
                        () -> inbound("shop"),
                        replay(),
                        Map.of("payload", Map.of("id", "evt-other", "type", "order.created"), "reason", "r"),
                        422,
                        "event_id_changed"),
                new Case(
                        "inbound partner no longer configured",
                        () -> inbound("retired"),
                        replay(),
                        Map.of("payload", Map.of("id", "evt-1", "type", "order.created"), "reason", "r"),
                        422,
                        "unknown_partner"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void aRefusedCorrectionAnswersTheErrorAndChangesNothing(Case refusal) {
        Fixture fixture = refusal.fixture().get();
        String before = snapshot(fixture);
        int wakeUpsBefore = DISPATCHER_WAKE_UPS.get();

        Answer answer =
                ResourceTests.call(RESOURCES, "POST", refusal.path().apply(fixture), ADMIN_TOKEN, refusal.body());

        assertThat(answer.status()).as(answer.body().toString()).isEqualTo(refusal.status());
        assertThat(answer.error()).isEqualTo(refusal.error());
        assertThat(answer.body().path("reason").asText()).isNotBlank();
        assertThat(snapshot(fixture)).isEqualTo(before);
        assertThat(DISPATCHER_WAKE_UPS.get()).isEqualTo(wakeUpsBefore);
    }

    @Test
    void anAcceptedCorrectionIsTheDeliverysOwnKeepsTheEventsAndResolvesAtOnce() {
        Fixture fixture = settledOutbound().get();

        Answer answer = ResourceTests.call(
                RESOURCES,
                "POST",
                replay().apply(fixture),
                ADMIN_TOKEN,
                Map.of("payload", Map.of("amount", 12, "orderId", "42"), "reason", "typo in the order id", "by", "al"));

        assertThat(answer.status()).as(answer.body().toString()).isEqualTo(200);
        String payloads = JDBI.withHandle(h -> h.createQuery("""
                        SELECT o.payload::text || ' / ' || d.edited_payload::text
                          FROM outbox_events o JOIN deliveries d ON d.outbox_id = o.id WHERE o.id = :id""")
                .bind("id", fixture.rowId())
                .mapTo(String.class)
                .one());
        assertThat(payloads).isEqualTo(ORIGINAL + " / {\"amount\": 12, \"orderId\": \"42\"}");
        Map<String, Object> edit = JDBI.withHandle(h ->
                h.createQuery("""
                        SELECT previous_payload::text AS previous, changes::text AS changes, reason, actor, declared_by,
                               signature_note
                          FROM payload_edits WHERE dead_letter_id = :id""").bind("id", fixture.deadLetterId()).mapToMap().one());
        assertThat(edit)
                .containsEntry("previous", ORIGINAL)
                .containsEntry("changes", "[{\"to\": \"42\", \"from\": \"4 2\", \"path\": \"/orderId\"}]")
                .containsEntry("reason", "typo in the order id")
                .containsEntry("actor", "admin token " + Caller.fingerprint(ADMIN_TOKEN))
                .containsEntry("declared_by", "al")
                .containsEntry("signature_note", null);
        assertThat(snapshot(fixture)).contains("REPLAYED", "PENDING");
    }

    private static Function<Fixture, String> replay() {
        return fixture -> "/admin/dead-letters/" + fixture.deadLetterId() + "/replay";
    }

    /** The dead letter, the row's payload and status, its deliveries and its audit entries, as one text. */
    private static String snapshot(Fixture fixture) {
        return JDBI.withHandle(h -> h.createQuery("""
                        SELECT concat_ws(' | ',
                                 (SELECT concat(resolved_at, ' ', resolution) FROM dead_letters WHERE id = :dl),
                                 (SELECT concat(payload::text, ' ', status) FROM %s WHERE id = :row),
                                 (SELECT string_agg(concat_ws(' ', status, attempts, edited_payload::text), ','
                                                    ORDER BY id)
                                    FROM deliveries WHERE outbox_id = :row),
                                 (SELECT count(*) FROM payload_edits WHERE row_id = :row)::text,
                                 (SELECT count(*) FROM audit_log)::text)""".formatted(fixture.table()))
                .bind("dl", fixture.deadLetterId())
                .bind("row", fixture.rowId())
                .mapTo(String.class)
                .one());
    }

    private static Supplier<Fixture> settledOutbound() {
        return () -> outbound("PROCESSED", null, true);
    }

    private static Fixture inFlightOutbound() {
        return outbound("DISPATCHED", "RETRYING", true);
    }

    private static Fixture disabledEndpointOutbound() {
        return outbound("PROCESSED", null, false);
    }

    private static Fixture discardedOutbound() {
        Fixture fixture = outbound("PROCESSED", null, true);
        JDBI.useExtension(
                DeadLetterStore.class,
                store -> store.resolveOpen(List.of(fixture.deadLetterId()), "someone", "DISCARDED: test"));
        return fixture;
    }

    /** An outbox row with a dead-lettered delivery (and another delivery, when its status is given). */
    private static Fixture outbound(String outboxStatus, String otherDelivery, boolean enabled) {
        UUID outboxId = JDBI.withHandle(h -> h.createQuery("""
                        INSERT INTO outbox_events (aggregate_type, aggregate_id, event_type, payload, status)
                        VALUES ('order', '42', 'order.paid', CAST(:payload AS jsonb), :status) RETURNING id""")
                .bind("payload", ORIGINAL)
                .bind("status", outboxStatus)
                .mapTo(UUID.class)
                .one());
        UUID delivery = delivery(outboxId, endpoint(enabled), "DEAD_LETTERED");
        if (otherDelivery != null) {
            delivery(outboxId, endpoint(true), otherDelivery);
        }
        return new Fixture(deadLetter(DeadLetterSource.OUTBOX, delivery), "outbox_events", outboxId);
    }

    private static Fixture inbound(String partner) {
        UUID inboxId = JDBI.withHandle(h -> h.createQuery("""
                        INSERT INTO webhook_inbox (partner_name, partner_event_id, event_type, aggregate_type, payload,
                                                   signature_verified, status)
                        VALUES (:partner, 'evt-1', 'order.created', 'order', CAST(:payload AS jsonb), true,
                                'QUARANTINED')
                        RETURNING id""")
                .bind("partner", partner)
                .bind("payload", "{\"id\": \"evt-1\", \"type\": \"order.created\"}")
                .mapTo(UUID.class)
                .one());
        return new Fixture(deadLetter(DeadLetterSource.INBOX, inboxId), "webhook_inbox", inboxId);
    }

    private static UUID endpoint(boolean enabled) {
        return JDBI.withExtension(EndpointStore.class, store -> {
            UUID id = store.insert(
                            "fix-" + UUID.randomUUID(),
                            "https://example.com/hooks",
                            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
                            List.of("*"))
                    .orElseThrow()
                    .id();
            if (!enabled) {
                store.setEnabled(id, false, "maintenance");
            }
            return id;
        });
    }

    private static UUID delivery(UUID outboxId, UUID endpointId, String status) {
        return JDBI.withHandle(h -> h.createQuery("""
                        INSERT INTO deliveries (outbox_id, endpoint_id, status, attempts)
                        VALUES (:outbox, :endpoint, :status, 1) RETURNING id""")
                .bind("outbox", outboxId)
                .bind("endpoint", endpointId)
                .bind("status", status)
                .mapTo(UUID.class)
                .one());
    }

    private static UUID deadLetter(DeadLetterSource source, UUID reference) {
        return JDBI.withExtension(
                        DeadLetterStore.class, store -> store.insertOpen(source, reference, "gave up", "400", 1))
                .orElseThrow();
    }

    /** The example partner's shape, with its event id in the body, so that an edit could change it. */
    private static PartnerFactory partner() {
        try {
            return Jackson.newObjectMapper(new YAMLFactory()).readValue("""
                    signature: {scheme: standard-webhooks, secrets: whsec_cGFydG5lci1mYWN0b3J5LXRlc3Qtc2VjcmV0LTE=}
                    eventId: {pointer: /id}
                    eventType: {pointer: /type}
                    aggregateId: {pointer: /data/orderId}
                    aggregateType: order
                    maxBodySize: 1KiB
                    """, PartnerFactory.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
