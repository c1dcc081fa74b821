package dev.relaybox.activities.deadletter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.activities.deadletter.DeadLetters.DeadLetter;
import dev.relaybox.store.DeadLetterSource;
import dev.relaybox.store.TestDatabase;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

class DeadLettersTest {
    static final Jdbi JDBI = TestDatabase.fresh();

    @Test
    void alertsNameAnEndpointByItsHostNeverByTheTokenInItsPath() {
        List<DeadLetter> recorded = new CopyOnWriteArrayList<>();
        List<DeadLetter> alerted = new CopyOnWriteArrayList<>();
        DeadLetters deadLetters = new DeadLetters(new DeadLetters.DeadLetterListener() {
            @Override
            public void recorded(Handle handle, DeadLetter deadLetter) {
                recorded.add(deadLetter);
            }

            @Override
            public void created(DeadLetter deadLetter) {
                alerted.add(deadLetter);
            }
        });

        DeadLetter outbound = JDBI.inTransaction(h -> deadLetters
                .record(
                        h,
                        DeadLetterSource.OUTBOX,
                        UUID.randomUUID(),
                        "https://hooks.example.com/services/T0K3N?sig=S1G",
                        "order.paid",
                        "gave up",
                        "503",
                        4)
                .orElseThrow());
        deadLetters.announce(outbound);
        DeadLetter inbound = JDBI.inTransaction(h -> deadLetters
                .record(h, DeadLetterSource.INBOX, UUID.randomUUID(), "shop", "order.paid", "rejected", null, 1)
                .orElseThrow());

        assertThat(recorded.get(0).peer()).isEqualTo("https://hooks.example.com/…");
        assertThat(alerted)
                .singleElement()
                .satisfies(d -> assertThat(d.peer()).doesNotContain("T0K3N").doesNotContain("S1G"));
        assertThat(inbound.peer()).isEqualTo("shop");
    }
}
