package dev.relaybox.activities.inbound;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.activities.inbound.InboxStore.ReceivedEvent;
import dev.relaybox.activities.store.TestDatabase;
import dev.relaybox.workflows.inbound.InboxOutcome.Outcome;
import dev.relaybox.workflows.inbound.InboxState;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The guarded status moves of {@link InboxStore} against the real schema. */
class InboxStoreTest {
    Jdbi jdbi;
    InboxStore store;

    @BeforeEach
    void freshDatabase() {
        jdbi = TestDatabase.fresh();
        store = jdbi.onDemand(InboxStore.class);
    }

    @Test
    void aFinishedRowIsNeverMovedByADecision() {
        UUID id = receive("evt-1");

        assertThat(store.markDeferred(id, "waiting for order.paid", 60_000)).isTrue();
        assertThat(store.markDeferred(id, "still waiting", 60_000)).isTrue();
        assertThat(store.markProcessed(id, Outcome.APPLIED, null)).isTrue();

        assertThat(store.markProcessed(id, Outcome.STALE, "again")).isFalse();
        assertThat(store.markDeferred(id, "late", 60_000)).isFalse();
        assertThat(store.markQuarantined(id, "late")).isFalse();
        assertThat(store.countAttempt(id)).isEmpty();
        InboxStore.InboxRow row = store.find(id).orElseThrow();
        assertThat(row.status()).isEqualTo(InboxState.PROCESSED);
        assertThat(row.outcome()).isEqualTo(Outcome.APPLIED);
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

    private UUID receive(String eventId) {
        return store.receive(new ReceivedEvent("shop", eventId, "order.created", "order", "1", "{}"))
                .id();
    }
}
