package dev.relaybox.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The audit log against a real PostgreSQL: appends chain, the table refuses changes, and tampering is found. */
class AuditLogTest {
    Jdbi jdbi;

    @BeforeEach
    void freshDatabase() {
        jdbi = TestDatabase.fresh();
    }

    @Test
    void entriesChainAndAnIntactLogSaysSo() {
        List<AuditLogStore.Sealed> sealed = appendThree();

        AuditChain.Verdict verdict = verify(sealed.get(1).hash());

        assertThat(verdict.problem()).isNull();
        assertThat(verdict.entries()).isEqualTo(3);
        assertThat(verdict.head()).isEqualTo(sealed.get(2).hash());
        assertThat(sealed).extracting(AuditLogStore.Sealed::seq).containsExactly(1L, 2L, 3L);
    }

    @Test
    void theTableRefusesUpdateDeleteAndTruncate() {
        appendThree();

        for (String statement : List.of(
                "UPDATE audit_log SET actor = 'someone else' WHERE seq = 2",
                "DELETE FROM audit_log WHERE seq = 3",
                "TRUNCATE audit_log")) {
            assertThatThrownBy(() -> jdbi.useHandle(h -> h.execute(statement)))
                    .as(statement)
                    .hasMessageContaining("audit_log is append-only");
        }
        assertThat(verify(null).entries()).isEqualTo(3);
    }

    @Test
    void anEntryAlteredBehindTheTriggersBackIsNamed() {
        appendThree();

        tamper("UPDATE audit_log SET details = jsonb_set(details, '{reason}', '\"nothing to see\"') WHERE seq = 2");

        assertThat(verify(null).problem())
                .startsWith("entry 2 (dead_letter.replayed, ")
                .endsWith("was altered: what it holds no longer matches its seal");
    }

    @Test
    void aRemovedEntryIsNamed() {
        appendThree();

        tamper("DELETE FROM audit_log WHERE seq = 2");

        assertThat(verify(null).problem()).isEqualTo("entry 2 is missing: the next one is 3");
    }

    @Test
    void aTailCutAndWrittenAgainIsFoundByASealRecordedEarlier() {
        List<AuditLogStore.Sealed> sealed = appendThree();
        tamper("DELETE FROM audit_log WHERE seq >= 2");
        append("a quieter story");

        assertThat(verify(null).problem()).as("consistent in itself").isNull();
        assertThat(verify(sealed.get(2).hash()).problem())
                .isEqualTo("the seal " + sealed.get(2).hash()
                        + " is not in the chain: the entries up to it were rewritten or removed");
    }

    @Test
    void appendsFromConcurrentTransactionsFormOneChain() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(4);
        List<Future<?>> writers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            writers.add(threads.submit(() -> {
                for (int i = 0; i < 15; i++) {
                    append("concurrent");
                }
            }));
        }
        for (Future<?> writer : writers) {
            writer.get();
        }
        threads.shutdown();

        AuditChain.Verdict verdict = verify(null);
        assertThat(verdict.problem()).isNull();
        assertThat(verdict.entries()).isEqualTo(60);
    }

    private List<AuditLogStore.Sealed> appendThree() {
        return List.of(append("first"), append("second"), append("third"));
    }

    private AuditLogStore.Sealed append(String reason) {
        return jdbi.inTransaction(h -> h.attach(AuditLogStore.class)
                .append(
                        "admin token 1f0c3a9e",
                        "dead_letter.replayed",
                        UUID.randomUUID(),
                        "{\"reason\": \"" + reason + "\", \"changes\": [{\"path\": \"/amount\", \"to\": 12.5}]}"));
    }

    /** What someone with the database's owner rights could do: switch the triggers off and change rows. */
    private void tamper(String statement) {
        jdbi.useTransaction(h -> {
            h.execute("ALTER TABLE audit_log DISABLE TRIGGER USER");
            h.execute(statement);
            h.execute("ALTER TABLE audit_log ENABLE TRIGGER USER");
        });
    }

    private AuditChain.Verdict verify(String seal) {
        AuditChain chain = new AuditChain(seal);
        jdbi.useTransaction(h -> h.attach(AuditLogStore.class).readChain(chain));
        return chain.verdict();
    }
}
