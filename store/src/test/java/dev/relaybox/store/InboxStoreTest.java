package dev.relaybox.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.store.InboxIntake.ReceivedEvent;
import dev.relaybox.workflows.inbound.InboxOutcome.Outcome;
import dev.relaybox.workflows.inbound.InboxState;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The guarded status moves of {@link InboxStore} against the real schema. */
class InboxStoreTest {
    Jdbi jdbi;
    InboxStore store;
    InboxIntake intake;

    @BeforeEach
    void freshDatabase() {
        jdbi = TestDatabase.fresh();
        store = jdbi.onDemand(InboxStore.class);
        intake = jdbi.onDemand(InboxIntake.class);
    }

    @Test
    void aFinishedRowIsNeverMovedByADecision() {
        UUID id = receive("evt-1");

        assertThat(store.markDeferred(id, "waiting for order.paid", InboxSettings.defaults()))
                .isTrue();
        assertThat(store.markDeferred(id, "still waiting", InboxSettings.defaults()))
                .isTrue();
        assertThat(store.markProcessed(id, Outcome.APPLIED, null)).isTrue();

        assertThat(store.markProcessed(id, Outcome.STALE, "again")).isFalse();
        assertThat(store.markDeferred(id, "late", InboxSettings.defaults())).isFalse();
        assertThat(store.markQuarantined(id, "late")).isFalse();
        assertThat(store.countAttempt(id)).isEmpty();
        InboxStore.InboxRow row = store.find(id).orElseThrow();
        assertThat(row.status()).isEqualTo(InboxState.PROCESSED);
        assertThat(row.outcome()).isEqualTo(Outcome.APPLIED);
    }

    @Test
    void anEventIdAgainIsADuplicateWithTheSameBodyAndAConflictWithAnother() {
        ReceivedEvent first = new ReceivedEvent("shop", "evt-again", "order.created", "order", "1", "{\"n\": 1}");
        UUID id = intake.receive(first).id();

        assertThat(intake.receive(first)).isEqualTo(new InboxIntake.Receipt(id, InboxIntake.Arrival.DUPLICATE));
        assertThat(intake.receive(new ReceivedEvent("shop", "evt-again", "order.created", "order", "1", "{\"n\": 2}")))
                .isEqualTo(new InboxIntake.Receipt(id, InboxIntake.Arrival.CONFLICT));
        assertThat(store.find(id).orElseThrow().payload()).isEqualTo("{\"n\": 1}");
    }

    @Test
    void aRowStoredBeforeBodiesWereHashedTakesAnyBodyUnderItsIdAsADuplicate() {
        UUID id = receive("evt-unhashed");
        jdbi.useHandle(h -> h.execute("UPDATE webhook_inbox SET body_sha256 = NULL WHERE id = ?", id));

        InboxIntake.Receipt again =
                intake.receive(new ReceivedEvent("shop", "evt-unhashed", "order.created", "order", "1", "{\"x\": 9}"));

        assertThat(again).isEqualTo(new InboxIntake.Receipt(id, InboxIntake.Arrival.DUPLICATE));
    }

    @Test
    void theRecordedRecheckIsNeverLaterThanTheDeferralDeadline() {
        InboxSettings hourlyForTenMinutes = new InboxSettings(Duration.ofHours(1), Duration.ofMinutes(10));
        UUID id = receive("evt-deadline");

        // The first deferral: the decision is recorded before the workflow records when the deferral began.
        Instant before = Instant.now();
        store.markDeferred(id, "waiting for order.paid", hourlyForTenMinutes);
        assertThat(nextRecheckAt(id))
                .isBefore(Instant.now().plus(Duration.ofMinutes(10)).plusSeconds(1));
        Instant since = before.minus(Duration.ofMinutes(9)).truncatedTo(ChronoUnit.MILLIS);
        store.recordDeferralStart(id, since, hourlyForTenMinutes.maxDeferral());
        assertThat(nextRecheckAt(id)).isEqualTo(since.plus(Duration.ofMinutes(10)));

        // A later recheck of a row whose deferral began nine minutes ago: due at the deadline, not in an hour.
        store.markDeferred(id, "still waiting for order.paid", hourlyForTenMinutes);
        assertThat(nextRecheckAt(id)).isEqualTo(since.plus(Duration.ofMinutes(10)));
    }

    @Test
    void aDeferralWithTimeToSpareRechecksAfterTheInterval() {
        InboxSettings everyMinuteForAnHour = new InboxSettings(Duration.ofMinutes(1), Duration.ofHours(1));
        UUID id = receive("evt-spare");
        Instant before = Instant.now().truncatedTo(ChronoUnit.MILLIS);

        store.markDeferred(id, "waiting for order.paid", everyMinuteForAnHour);
        store.recordDeferralStart(id, before, everyMinuteForAnHour.maxDeferral());
        store.markDeferred(id, "still waiting for order.paid", everyMinuteForAnHour);

        assertThat(nextRecheckAt(id))
                .isBetween(before.plus(Duration.ofMinutes(1)), Instant.now().plus(Duration.ofMinutes(1)));
    }

    @Test
    void replayReopensOnlyQuarantinedRows() {
        UUID quarantined = receive("evt-q");
        UUID processed = receive("evt-p");
        store.markQuarantined(quarantined, "no state machine");
        store.markProcessed(processed, Outcome.APPLIED, null);

        assertThat(store.reopenQuarantined(List.of(quarantined, processed))).isEqualTo(1);

        assertThat(store.find(quarantined).orElseThrow().status()).isEqualTo(InboxState.RECEIVED);
        assertThat(store.find(quarantined).orElseThrow().lastError()).isNull();
        assertThat(store.find(processed).orElseThrow().status()).isEqualTo(InboxState.PROCESSED);
    }

    private Instant nextRecheckAt(UUID id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT next_recheck_at FROM webhook_inbox WHERE id = :id")
                .bind("id", id)
                .mapTo(Instant.class)
                .one());
    }

    private UUID receive(String eventId) {
        return intake.receive(new ReceivedEvent("shop", eventId, "order.created", "order", "1", "{}"))
                .id();
    }
}
