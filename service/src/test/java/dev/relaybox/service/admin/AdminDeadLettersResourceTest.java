package dev.relaybox.service.admin;

import static dev.relaybox.service.api.ResourceTests.ADMIN_TOKEN;
import static dev.relaybox.service.api.ResourceTests.PRODUCER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.service.api.ResourceTests;
import dev.relaybox.service.api.ResourceTests.Answer;
import dev.relaybox.service.auth.Caller;
import dev.relaybox.service.recovery.DeadLetterEdits;
import dev.relaybox.service.recovery.DeadLetterReplay;
import dev.relaybox.service.recovery.PayloadSchemas;
import dev.relaybox.store.DeadLetterSource;
import dev.relaybox.store.DeadLetterStore;
import dev.relaybox.store.EndpointStore;
import dev.relaybox.store.TestDatabase;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.dropwizard.testing.junit5.ResourceExtension;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Every refusal of {@code /admin/dead-letters}, and its paging, against the real store. */
@ExtendWith(DropwizardExtensionsSupport.class)
class AdminDeadLettersResourceTest {
    static final Jdbi JDBI = TestDatabase.fresh();
    static final AtomicInteger DISPATCHER_WAKE_UPS = new AtomicInteger();
    static final ResourceExtension RESOURCES = ResourceTests.extension(new AdminDeadLettersResource(
            JDBI,
            new TemporalLinks("http://temporal.test", "default", false),
            new DeadLetterReplay(
                    JDBI,
                    DISPATCHER_WAKE_UPS::incrementAndGet,
                    new DeadLetterEdits(Map.of(), 256 * 1024, PayloadSchemas.ACCEPT_ALL))));

    @Test
    void refusesFiltersThatCouldNeverMatchAndCursorsItDidNotHandOut() {
        assertError(get("/admin/dead-letters?source=sideways"), 400, "invalid_filter");
        assertError(get("/admin/dead-letters?aggregate=no-colon"), 400, "invalid_filter");
        assertError(get("/admin/dead-letters?cursor=not-ours"), 400, "invalid_cursor");
        assertError(get("/admin/dead-letters?limit=0"), 400, "invalid_request");
        assertError(get("/admin/dead-letters?limit=501"), 400, "invalid_request");
        UUID open = deadLetter(DeadLetterSource.INBOX, UUID.randomUUID());

        assertError(
                post("/admin/dead-letters/replay", Map.of("filter", Map.of("source", "sideways"))),
                400,
                "invalid_filter");
        assertError(post("/admin/dead-letters/replay", null), 400, "invalid_request");

        assertThat(get("/admin/dead-letters/" + open).body().path("resolvedAt").isNull())
                .isTrue();
    }

    @Test
    void aDeadLetterThatDoesNotExistIsNotFound() {
        UUID missing = UUID.randomUUID();

        assertError(get("/admin/dead-letters/" + missing), 404, "dead_letter_not_found");
        assertError(post("/admin/dead-letters/" + missing + "/replay", Map.of()), 404, "dead_letter_not_found");
        assertError(
                post("/admin/dead-letters/" + missing + "/discard", Map.of("reason", "gone")),
                404,
                "dead_letter_not_found");
    }

    @Test
    void discardNeedsAReasonAndResolvesOnlyOnce() {
        UUID id = deadLetter(DeadLetterSource.INBOX, UUID.randomUUID());

        assertError(post("/admin/dead-letters/" + id + "/discard", Map.of()), 400, "invalid_request");
        Answer discarded = post("/admin/dead-letters/" + id + "/discard", Map.of("reason", "partner retired"));
        assertError(post("/admin/dead-letters/" + id + "/discard", Map.of("reason", "again")), 409, "already_resolved");
        assertError(post("/admin/dead-letters/" + id + "/replay", Map.of()), 409, "already_resolved");

        assertThat(discarded.status()).isEqualTo(200);
        assertThat(discarded.body().path("resolution").asText()).isEqualTo("DISCARDED: partner retired");
        assertThat(get("/admin/dead-letters/" + id).body().path("resolution").asText())
                .isEqualTo("DISCARDED: partner retired");
    }

    @Test
    void replayRefusesADeadLetterWhoseEndpointIsDisabledAndResolvesNothing() {
        UUID deliveryId = deliveryToDisabledEndpoint();
        UUID id = deadLetter(DeadLetterSource.OUTBOX, deliveryId);
        int wakeUpsBefore = DISPATCHER_WAKE_UPS.get();

        assertError(post("/admin/dead-letters/" + id + "/replay", Map.of()), 409, "endpoint_disabled");
        Answer bulk = post("/admin/dead-letters/replay", Map.of("filter", Map.of("peer", "disabled-receiver")));

        assertThat(bulk.body().path("replayed").asInt()).isZero();
        assertThat(bulk.body().path("skippedDisabledEndpoint").asInt()).isEqualTo(1);
        assertThat(get("/admin/dead-letters/" + id).body().path("resolvedAt").isNull())
                .isTrue();
        assertThat(DISPATCHER_WAKE_UPS.get()).isEqualTo(wakeUpsBefore);
    }

    @Test
    void filtersOnlyByWhatIsGiven() {
        UUID outboxId = quarantinedOutboxRow("invoice", "inv-7");
        UUID byAggregate = deadLetter(DeadLetterSource.OUTBOX, outboxId);
        UUID inbound = deadLetter(DeadLetterSource.INBOX, UUID.randomUUID());

        List<String> inboxOnly = get("/admin/dead-letters?source=inbox&limit=500")
                .body()
                .path("items")
                .findValuesAsText("id");
        List<String> ofAggregate = get("/admin/dead-letters?aggregate=invoice:inv-7")
                .body()
                .path("items")
                .findValuesAsText("id");
        List<String> all =
                get("/admin/dead-letters?limit=500").body().path("items").findValuesAsText("id");
        List<String> emptyFilters = get("/admin/dead-letters?source=&peer=&limit=500")
                .body()
                .path("items")
                .findValuesAsText("id");

        assertThat(inboxOnly).contains(inbound.toString()).doesNotContain(byAggregate.toString());
        assertThat(ofAggregate).containsExactly(byAggregate.toString());
        assertThat(all).contains(inbound.toString(), byAggregate.toString());
        assertThat(emptyFilters).isEqualTo(all);
        assertThat(get("/admin/dead-letters/" + byAggregate)
                        .body()
                        .path("aggregate")
                        .asText())
                .isEqualTo("invoice:inv-7");
    }

    @Test
    void pagesNewestFirstPastOnePageWhileNewDeadLettersArrive() {
        String peer = "paging-" + UUID.randomUUID();
        Instant base = Instant.now().minus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS);
        List<String> oldestFirst = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            // Two share a timestamp, so the id breaks the tie.
            oldestFirst.add(
                    inboundDeadLetter(peer, base.plusSeconds(i == 4 ? 3 : i)).toString());
        }
        String query = "/admin/dead-letters?peer=" + peer + "&limit=2";

        JsonNode first = get(query).body();
        inboundDeadLetter(peer, Instant.now());
        inboundDeadLetter(peer, Instant.now().plusSeconds(1));
        JsonNode second =
                get(query + "&cursor=" + first.path("nextCursor").asText()).body();
        JsonNode third =
                get(query + "&cursor=" + second.path("nextCursor").asText()).body();

        List<String> seen = new ArrayList<>();
        for (JsonNode page : List.of(first, second, third)) {
            seen.addAll(page.path("items").findValuesAsText("id"));
        }
        assertThat(first.path("items").size()).isEqualTo(2);
        assertThat(second.path("items").size()).isEqualTo(2);
        assertThat(third.path("nextCursor").isNull()).isTrue();
        assertThat(seen).containsExactlyInAnyOrderElementsOf(oldestFirst).doesNotHaveDuplicates();
        assertThat(seen.get(0)).isIn(oldestFirst.get(3), oldestFirst.get(4));
        assertThat(seen.get(4)).isEqualTo(oldestFirst.get(0));
    }

    @Test
    void bulkReplayWithoutAFilterIsRefusedUnlessAllIsSaidAndResolvesNothing() {
        UUID open = inboundDeadLetter("unfiltered-" + UUID.randomUUID(), Instant.now());

        assertError(post("/admin/dead-letters/replay", Map.of()), 422, "filter_required");
        assertError(post("/admin/dead-letters/replay", Map.of("filter", Map.of("peer", ""))), 422, "filter_required");
        assertError(post("/admin/dead-letters/replay", Map.of("all", true, "limit", 1001)), 400, "invalid_request");

        assertThat(get("/admin/dead-letters/" + open).body().path("resolvedAt").isNull())
                .isTrue();
    }

    @Test
    void bulkReplayTakesTheOldestBatchAndSaysHowManyRemain() {
        String peer = "batched-" + UUID.randomUUID();
        Instant base = Instant.now().minus(1, ChronoUnit.HOURS);
        List<UUID> oldestFirst = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            oldestFirst.add(inboundDeadLetter(peer, base.plusSeconds(i)));
        }

        int before = get("/admin/dead-letters/count?peer=" + peer)
                .body()
                .path("open")
                .asInt();
        Answer first = post("/admin/dead-letters/replay", Map.of("filter", Map.of("peer", peer), "limit", 2));
        int after = get("/admin/dead-letters/count?peer=" + peer)
                .body()
                .path("open")
                .asInt();

        assertThat(before).isEqualTo(3);
        assertThat(first.body().path("replayed").asInt()).isEqualTo(2);
        assertThat(first.body().path("remaining").asInt()).isEqualTo(1);
        assertThat(after).isEqualTo(1);
        assertThat(get("/admin/dead-letters/" + oldestFirst.get(2))
                        .body()
                        .path("resolvedAt")
                        .isNull())
                .as("the newest is left for the next batch")
                .isTrue();
    }

    @Test
    void aReplayRecordsTheTokensFingerprintBesideAnySelfDeclaredName() {
        UUID anonymous = inboundDeadLetter("actor-" + UUID.randomUUID(), Instant.now());
        UUID named = inboundDeadLetter("actor-" + UUID.randomUUID(), Instant.now());
        String token = "admin token " + Caller.fingerprint(ADMIN_TOKEN);

        post("/admin/dead-letters/" + anonymous + "/replay", Map.of());
        post("/admin/dead-letters/" + named + "/replay", Map.of("by", "alice"));

        assertThat(get("/admin/dead-letters/" + anonymous)
                        .body()
                        .path("resolvedBy")
                        .asText())
                .isEqualTo(token);
        assertThat(get("/admin/dead-letters/" + named).body().path("resolvedBy").asText())
                .isEqualTo("alice (" + token + ")")
                .doesNotContain(ADMIN_TOKEN);
    }

    @Test
    void onlyAdminsMayListOrReplay() {
        assertError(ResourceTests.call(RESOURCES, "GET", "/admin/dead-letters", null, null), 401, "unauthorized");
        assertError(
                ResourceTests.call(RESOURCES, "POST", "/admin/dead-letters/replay", PRODUCER_TOKEN, Map.of()),
                403,
                "forbidden");
    }

    private static UUID deadLetter(DeadLetterSource source, UUID reference) {
        return JDBI.withExtension(
                        DeadLetterStore.class, store -> store.insertOpen(source, reference, "gave up", "503", 4))
                .orElseThrow();
    }

    private static UUID inboundDeadLetter(String partner, Instant at) {
        UUID inboxId = JDBI.withHandle(h -> h.createQuery("""
                        INSERT INTO webhook_inbox (partner_name, partner_event_id, payload, signature_verified, status)
                        VALUES (:partner, :eventId, '{}', true, 'QUARANTINED') RETURNING id""")
                .bind("partner", partner)
                .bind("eventId", UUID.randomUUID().toString())
                .mapTo(UUID.class)
                .one());
        UUID id = deadLetter(DeadLetterSource.INBOX, inboxId);
        JDBI.useHandle(h -> h.execute("UPDATE dead_letters SET created_at = ? WHERE id = ?", at, id));
        return id;
    }

    private static UUID quarantinedOutboxRow(String aggregateType, String aggregateId) {
        return JDBI.withHandle(h -> h.createQuery("""
                        INSERT INTO outbox_events (aggregate_type, aggregate_id, event_type, payload, status)
                        VALUES (:type, :id, 'invoice.sent', '{}', 'QUARANTINED') RETURNING id""")
                .bind("type", aggregateType)
                .bind("id", aggregateId)
                .mapTo(UUID.class)
                .one());
    }

    private static UUID deliveryToDisabledEndpoint() {
        UUID endpointId = JDBI.withExtension(EndpointStore.class, store -> {
            UUID id = store.insert(
                            "disabled-receiver",
                            "https://example.com/hooks",
                            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
                            List.of("*"))
                    .orElseThrow()
                    .id();
            store.setEnabled(id, false, "maintenance");
            return id;
        });
        UUID outboxId = quarantinedOutboxRow("order", "o-1");
        return JDBI.withHandle(h -> h.createQuery("""
                        INSERT INTO deliveries (outbox_id, endpoint_id, status) VALUES (:outbox, :endpoint, 'DEAD_LETTERED')
                        RETURNING id""")
                .bind("outbox", outboxId)
                .bind("endpoint", endpointId)
                .mapTo(UUID.class)
                .one());
    }

    private static Answer get(String path) {
        return ResourceTests.call(RESOURCES, "GET", path, ADMIN_TOKEN, null);
    }

    private static Answer post(String path, Object body) {
        return ResourceTests.call(RESOURCES, "POST", path, ADMIN_TOKEN, body);
    }

    private static void assertError(Answer answer, int status, String error) {
        assertThat(answer.status()).as(answer.body().toString()).isEqualTo(status);
        assertThat(answer.error()).isEqualTo(error);
        assertThat(answer.body().path("reason").asText()).isNotBlank();
    }
}
