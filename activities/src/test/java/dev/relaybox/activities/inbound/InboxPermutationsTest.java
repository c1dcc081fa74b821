package dev.relaybox.activities.inbound;

import static dev.relaybox.activities.inbound.InboxFixtures.IN_ORDER;
import static dev.relaybox.activities.inbound.InboxFixtures.PARTNER;
import static dev.relaybox.activities.inbound.InboxFixtures.QUEUE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.activities.TestDataSource;
import dev.relaybox.activities.TestEngine;
import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.activities.statemachine.OrderArrivals;
import dev.relaybox.activities.workers.RelayboxWorkers;
import dev.relaybox.store.InboxSettings;
import dev.relaybox.store.Store;
import dev.relaybox.store.TestDatabase;
import dev.relaybox.workflows.inbound.InboxEventWorkflow;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.client.WorkflowClient;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Whatever order and however often a partner delivers an order's events, the stored inbox ends where in-order
 * delivery would: every row applied once, the order delivered, nothing dead-lettered. The recheck interval is far
 * beyond the test and Temporal's clock stays still while the test waits on the database, so only release signals
 * can move a deferred event on.
 */
class InboxPermutationsTest {
    private static final AtomicInteger CASES = new AtomicInteger();
    private static final String ORDER = "42";

    private static TestWorkflowEnvironment env;
    private static TestDataSource activitiesDataSource;

    @BeforeAll
    static void startWorker() {
        // One Temporal environment for every case; each case swaps in its own fresh database.
        activitiesDataSource = new TestDataSource(TestDatabase.freshDataSource());
        env = TestEngine.start(
                QUEUE,
                RelayboxWorkers.build(
                        Store.configure(Jdbi.create(activitiesDataSource), TestDatabase.SECRETS),
                        RelayboxWorkers.Settings.defaults()
                                .withMachines(InboxFixtures.orderMachines())
                                .withInbox(new InboxSettings(Duration.ofDays(30), Duration.ofDays(365))),
                        DeadLetters.loggingOnly(),
                        new SimpleMeterRegistry()));
    }

    @AfterAll
    static void stopWorker() {
        env.close();
    }

    @ParameterizedTest(name = "{index}: {0}")
    @MethodSource("arrivals")
    void anyArrivalOrderWithDuplicatesEndsDeliveredWithEveryEventAppliedOnce(List<String> arrivals) {
        DataSource database = TestDatabase.freshDataSource();
        activitiesDataSource.switchTo(database);
        Jdbi db = Store.configure(Jdbi.create(database), TestDatabase.SECRETS);
        WorkflowClient client = env.getWorkflowClient();
        // Workflow ids outlive a case in the shared environment, so event ids are unique per case.
        String eventIdPrefix = "case" + CASES.incrementAndGet() + "-";

        List<String> started = new ArrayList<>();
        for (String eventType : arrivals) {
            String eventId = eventIdPrefix + eventType;
            Optional<UUID> stored = InboxFixtures.receive(db, eventId, eventType, "order", ORDER, "{}");
            // A duplicate is stored once and starts nothing, as at the intake.
            stored.ifPresent(id -> {
                InboxFixtures.start(client, eventId, id);
                started.add(eventId);
            });
        }
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(20))
                .until(() ->
                        count(db, "SELECT count(*) FROM webhook_inbox WHERE status IN ('RECEIVED', 'DEFERRED')") == 0);
        // Every row is finished; let the workflows end before the next case swaps the database.
        started.forEach(eventId -> client.newUntypedWorkflowStub(InboxEventWorkflow.workflowId(PARTNER, eventId))
                .getResult(Void.class));

        assertThat(strings(db, "SELECT state || '@' || version FROM entities")).containsExactly("delivered@4");
        assertThat(strings(db, "SELECT status || ' ' || outcome FROM webhook_inbox"))
                .hasSize(IN_ORDER.size())
                .containsOnly("PROCESSED APPLIED");
        // Not ordered by created_at: that is each transaction's start, and one may start, then wait for the lock.
        assertThat(strings(db, "SELECT event_type FROM outbox_events"))
                .containsExactlyInAnyOrder("order.payment_confirmed", "order.shipped");
        assertThat(count(db, "SELECT count(*) FROM dead_letters")).isZero();
    }

    /** Every permutation of the four events, then 20 seeded shuffles with up to 4 duplicates each. */
    static Stream<List<String>> arrivals() {
        return Stream.concat(
                OrderArrivals.permutations(IN_ORDER).stream(),
                IntStream.range(0, 20)
                        .mapToObj(seed -> OrderArrivals.shuffledWithDuplicates(IN_ORDER, new Random(seed), 4)));
    }

    private static List<String> strings(Jdbi db, String sql) {
        return db.withHandle(h -> h.createQuery(sql).mapTo(String.class).list());
    }

    private static int count(Jdbi db, String sql) {
        return db.withHandle(h -> h.createQuery(sql).mapTo(int.class).one());
    }
}
