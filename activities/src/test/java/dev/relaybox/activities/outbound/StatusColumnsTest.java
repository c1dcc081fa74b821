package dev.relaybox.activities.outbound;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.store.TestDatabase;
import dev.relaybox.workflows.outbound.DeliveryStatus;
import dev.relaybox.workflows.outbound.OutboxStatus;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/** The enums and the migrated CHECK constraints name the same statuses: neither can drift alone. */
class StatusColumnsTest {
    static final Jdbi JDBI = TestDatabase.fresh();

    @Test
    void deliveryStatusesAreExactlyTheOnesTheColumnAccepts() {
        assertThat(checkedValues("deliveries_status_check"))
                .containsExactlyInAnyOrderElementsOf(
                        Arrays.stream(DeliveryStatus.values()).map(Enum::name).toList());
    }

    @Test
    void outboxStatusesAreExactlyTheOnesTheColumnAccepts() {
        assertThat(checkedValues("outbox_events_status_check"))
                .containsExactlyInAnyOrderElementsOf(
                        Arrays.stream(OutboxStatus.values()).map(Enum::name).toList());
    }

    /** The quoted literals of a {@code CHECK (status IN (...))} constraint. */
    private static List<String> checkedValues(String constraint) {
        String definition = JDBI.withHandle(
                h -> h.createQuery("SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = :name")
                        .bind("name", constraint)
                        .mapTo(String.class)
                        .one());
        return Pattern.compile("'([A-Z_]+)'")
                .matcher(definition)
                .results()
                .map(m -> m.group(1))
                .toList();
    }
}
