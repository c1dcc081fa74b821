package dev.relaybox.activities.inbound;

import static dev.relaybox.activities.inbound.InboxFixtures.PARTNER;
import static dev.relaybox.activities.inbound.InboxFixtures.QUEUE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.activities.TestDataSource;
import dev.relaybox.activities.TestEngine;
import dev.relaybox.activities.TestMetrics;
import dev.relaybox.activities.Visibility;
import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.activities.replay.RecordedHistories;
import dev.relaybox.activities.workers.RelayboxWorkers;
import dev.relaybox.store.InboxSettings;
import dev.relaybox.store.Store;
import dev.relaybox.store.TestDatabase;
import dev.relaybox.workflows.RelaySearchAttributes;
import dev.relaybox.workflows.inbound.InboxEventWorkflow;
import dev.relaybox.workflows.inbound.InboxEventWorkflowImpl;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.api.common.v1.Payloads;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/** The inbox workflow with its real activities: real PostgreSQL, the order machine, Temporal's clock skipped ahead. */
@Execution(ExecutionMode.CONCURRENT)
class InboxEventWorkflowTest {
    static final String ORDER = "42";

    /** The activities' connections; the test reads and writes through {@link #db}, which never goes away. */
    TestDataSource activitiesDataSource;

    Jdbi db;
    TestWorkflowEnvironment env;
    WorkflowClient client;
    SimpleMeterRegistry metrics;

    void start(InboxSettings settings) {
        DataSource database = TestDatabase.freshDataSource();
        db = Store.configure(Jdbi.create(database), TestDatabase.SECRETS);
        activitiesDataSource = new TestDataSource(database);
        metrics = new SimpleMeterRegistry();
        env = TestEngine.start(
                QUEUE,
                RelayboxWorkers.build(
                        Store.configure(Jdbi.create(activitiesDataSource), TestDatabase.SECRETS),
                        RelayboxWorkers.Settings.defaults()
                                .withMachines(InboxFixtures.orderMachines())
                                .withInbox(settings),
                        DeadLetters.loggingOnly(),
                        new SimpleMeterRegistry()),
                TestEnvironmentOptions.newBuilder()
                        .setMetricsScope(TestMetrics.scope(metrics))
                        .build());
        client = env.getWorkflowClient();
    }

    @AfterEach
    void stop() {
        if (env != null) {
            env.close();
        }
    }

    @Test
    void inOrderEventsAreAppliedAndEmitOutboxRowsInTheSameTransaction() {
        start(InboxSettings.defaults());

        for (String eventType : InboxFixtures.IN_ORDER) {
            process(eventType, eventType);
        }

        assertThat(entity()).isEqualTo("delivered@4");
        assertThat(rows("status || ' ' || outcome"))
                .containsOnly("PROCESSED APPLIED")
                .hasSize(4);
        assertThat(strings("""
                SELECT event_type || ' ' || aggregate_type || ':' || aggregate_id || ' ' || payload::text
                  FROM outbox_events ORDER BY created_at"""))
                .containsExactly(
                        "order.payment_confirmed order:42 " + payload("order.paid"),
                        "order.shipped order:42 " + payload("order.shipped"));
        // now() is the transaction's start time: equal timestamps mean one transaction wrote both rows.
        assertThat(count("""
                SELECT count(*) FROM outbox_events o JOIN webhook_inbox i
                    ON i.event_type = CASE o.event_type WHEN 'order.payment_confirmed' THEN 'order.paid'
                                                        ELSE o.event_type END
                 WHERE o.created_at = i.processed_at""")).isEqualTo(2);
        assertThat(openDeadLetters()).isZero();
    }

    @Test
    void shippedBeforePaidIsDeferredThenReleasedBySignalNotByTimer() {
        start(new InboxSettings(Duration.ofHours(1), Duration.ofHours(24)));
        process("created", "order.created");

        UUID shipped = receive("shipped", "order.shipped");
        InboxFixtures.startAsDispatched(client, "shipped", shipped, "order.shipped", "order:42");
        await().atMost(Duration.ofSeconds(20)).until(() -> status(shipped).equals("DEFERRED"));
        assertThat(row(shipped, "defer_reason")).isEqualTo("waiting for order.paid: entity is created");
        // The row is marked before the workflow shows it.
        await().atMost(Duration.ofSeconds(20))
                .until(() -> running("shipped").status().status().equals("deferred"));
        String shippedWorkflow = InboxEventWorkflow.workflowId(PARTNER, "shipped");
        assertThat(Visibility.attribute(client, shippedWorkflow, RelaySearchAttributes.STATUS))
                .isEqualTo("deferred");
        assertThat(Visibility.attribute(client, shippedWorkflow, RelaySearchAttributes.DIRECTION))
                .isEqualTo("inbound");
        assertThat(Visibility.attribute(client, shippedWorkflow, RelaySearchAttributes.AGGREGATE))
                .isEqualTo("order:42");
        assertThat(Visibility.attribute(client, shippedWorkflow, RelaySearchAttributes.PEER))
                .isEqualTo(PARTNER);
        assertThat(Visibility.currentDetails(client, shippedWorkflow))
                .startsWith("waiting for order.paid; entity is created; rechecks every 1h");
        long clockBefore = env.currentTimeMillis();

        UUID paid = receive("paid", "order.paid");
        InboxFixtures.start(client, "paid", paid);
        // Waiting on the database, not on a workflow result, keeps Temporal's clock from skipping to the recheck.
        await().atMost(Duration.ofSeconds(20)).until(() -> status(shipped).equals("PROCESSED"));

        assertThat(Duration.ofMillis(env.currentTimeMillis() - clockBefore)).isLessThan(Duration.ofHours(1));
        assertThat(row(shipped, "outcome")).isEqualTo("APPLIED");
        assertThat(entity()).isEqualTo("shipped@3");
        waitForResult("shipped");
        assertThat(Visibility.attribute(client, shippedWorkflow, RelaySearchAttributes.STATUS))
                .isEqualTo("processed");
        List<EventType> history = eventTypes("shipped");
        assertThat(history)
                .contains(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED, EventType.EVENT_TYPE_TIMER_CANCELED)
                .doesNotContain(EventType.EVENT_TYPE_TIMER_FIRED);
        assertReplays("shipped");
    }

    @Test
    void deferredEventWhosePreconditionNeverComesDeadLettersAfterMaxDeferral() {
        start(new InboxSettings(Duration.ofHours(1), Duration.ofHours(24)));
        process("created", "order.created");
        long clockBefore = env.currentTimeMillis();

        UUID shipped = process("shipped", "order.shipped");

        assertThat(Duration.ofMillis(env.currentTimeMillis() - clockBefore))
                .isGreaterThanOrEqualTo(Duration.ofHours(24));
        assertThat(status(shipped)).isEqualTo("QUARANTINED");
        // The first decision, then one per hourly recheck until the 24 hours are spent.
        assertThat(row(shipped, "attempts")).isEqualTo("25");
        Map<String, Object> deadLetter =
                db.withHandle(h -> h.createQuery("SELECT source, reference, reason, attempts FROM dead_letters")
                        .mapToMap()
                        .one());
        assertThat(deadLetter)
                .containsEntry("source", "INBOX")
                .containsEntry("reference", shipped)
                .containsEntry("attempts", 25);
        assertThat((String) deadLetter.get("reason"))
                .isEqualTo("waiting for order.paid: entity is created (still deferred after 24h)");
        assertThat(entity()).isEqualTo("created@1");
        assertReplays("shipped");
    }

    @Test
    void dayLongDeferralWithMinuteRechecksContinuesAsNewAndDeadLettersAtItsDeadlineNotBefore() {
        // 1,440 real decisions: about 11,000 history events in all, so at least two continue-as-new.
        start(new InboxSettings(Duration.ofMinutes(1), Duration.ofDays(1)));
        process("created", "order.created");
        UUID shipped = receive("shipped", "order.shipped");
        String firstRun = WorkflowClient.start(InboxFixtures.workflow(client, "shipped")::process, shipped, null)
                .getRunId();

        waitForResult("shipped");

        assertThat(status(shipped)).isEqualTo("QUARANTINED");
        // Dead-lettered at the deadline on Temporal's clock, counted from the first deferral: the clock never
        // restarted (it would never end) and nothing ended early. (The clock also moves while decisions run, so
        // the number of rechecks is a little under one a minute.)
        Instant deferredSince =
                db.withHandle(h -> h.createQuery("SELECT deferred_since FROM webhook_inbox WHERE id = :id")
                        .bind("id", shipped)
                        .mapTo(Instant.class)
                        .one());
        List<HistoryEvent> lastRun = history("shipped");
        Instant closed = Instant.ofEpochSecond(
                lastRun.get(lastRun.size() - 1).getEventTime().getSeconds());
        assertThat(Duration.between(deferredSince, closed))
                .isBetween(
                        Duration.ofDays(1).minusSeconds(1), Duration.ofDays(1).plusMinutes(2));
        assertThat(Integer.parseInt(row(shipped, "attempts"))).isGreaterThan(24 * 60 - 10);
        assertThat(deadLetterReason(shipped))
                .isEqualTo("waiting for order.paid: entity is created (still deferred after 24h)");
        List<HistoryEvent> firstRunHistory = client.fetchHistory(
                        InboxEventWorkflow.workflowId(PARTNER, "shipped"), firstRun)
                .getEvents();
        assertThat(firstRunHistory.get(firstRunHistory.size() - 1).getEventType())
                .isEqualTo(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW);
        assertThat(firstRunHistory).hasSizeLessThan(10_000);
        assertThat(lastRun).hasSizeLessThan(10_000);
    }

    @Test
    void poisonEventIsQuarantinedAtOnce() {
        start(InboxSettings.defaults());

        UUID noAggregateId = process("no-id", "order.paid", "order", null);
        UUID unknownEventType = process("refund", "order.refunded", "order", ORDER);
        UUID unknownAggregateType = process("invoice", "invoice.paid", "invoice", "7");

        assertThat(List.of(noAggregateId, unknownEventType, unknownAggregateType))
                .allSatisfy(id -> {
                    assertThat(status(id)).isEqualTo("QUARANTINED");
                    assertThat(row(id, "attempts")).isEqualTo("1");
                });
        assertThat(deadLetterReason(noAggregateId)).isEqualTo("the event has no aggregate id (aggregate type 'order')");
        assertThat(deadLetterReason(unknownEventType)).isEqualTo("unknown event type 'order.refunded' for order");
        assertThat(deadLetterReason(unknownAggregateType))
                .isEqualTo("no state machine is configured for aggregate type 'invoice' and no route of partner 'shop'"
                        + " matches event type 'invoice.paid'");
        assertThat(row(unknownEventType, "last_error")).isEqualTo("unknown event type 'order.refunded' for order");
        assertThat(count("SELECT count(*) FROM entities")).isZero();
    }

    @Test
    void staleEventIsProcessedAsNoOp() {
        start(InboxSettings.defaults());
        process("created", "order.created");
        process("paid", "order.paid");
        process("shipped", "order.shipped");

        UUID latePaid = process("paid-again", "order.paid");

        assertThat(status(latePaid)).isEqualTo("PROCESSED");
        assertThat(row(latePaid, "outcome")).isEqualTo("STALE");
        assertThat(row(latePaid, "processed_at")).isNotNull();
        assertThat(row(latePaid, "last_error"))
                .isEqualTo("stale, nothing changed: entity is already shipped, at or past paid");
        assertThat(entity()).isEqualTo("shipped@3");
        assertThat(outboxEventTypes()).containsExactly("order.payment_confirmed", "order.shipped");
        assertThat(openDeadLetters()).isZero();
    }

    @Test
    void databaseGoingAwayMidProcessingDoesNotLoseTheEvent() {
        start(InboxSettings.defaults());
        // plan gets its connection; the first three decide attempts find the database gone.
        activitiesDataSource.outage(1, 3);

        UUID created = process("created", "order.created");

        assertThat(activitiesDataSource.refused()).isEqualTo(3);
        assertThat(status(created)).isEqualTo("PROCESSED");
        assertThat(row(created, "outcome")).isEqualTo("APPLIED");
        assertThat(row(created, "attempts"))
                .as("refused attempts never reached the row")
                .isEqualTo("1");
        assertThat(entity()).isEqualTo("created@1");
        // Both store calls ran inside the workflow task as local activities (no activity task went through the
        // server): plan on its first attempt, decide on its fourth.
        assertThat(eventTypes("created")).doesNotContain(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED);
        assertThat(history("created").stream()
                        .filter(e -> e.getEventType() == EventType.EVENT_TYPE_MARKER_RECORDED
                                && e.getMarkerRecordedEventAttributes()
                                        .getMarkerName()
                                        .equals("LocalActivity"))
                        .map(InboxEventWorkflowTest::localActivityAttempt))
                .containsExactly(1, 4);
    }

    /** The attempt a local activity's marker records (its "meta" detail, {"atpt": n, ...}; absent for the first). */
    private static int localActivityAttempt(HistoryEvent marker) {
        Payloads meta = marker.getMarkerRecordedEventAttributes().getDetailsOrDefault("meta", null);
        if (meta == null) {
            return 1;
        }
        Map<?, ?> metadata =
                DefaultDataConverter.STANDARD_INSTANCE.fromPayloads(0, Optional.of(meta), Map.class, Map.class);
        return metadata.get("atpt") instanceof Number attempt ? attempt.intValue() : 1;
    }

    @Test
    void databaseDownLongerThanEveryRetryIsWaitedOutNotDeadLettered() {
        start(InboxSettings.defaults());
        // plan gets its connection; decide is refused 25 times: two whole rounds of its 10 retries, and more.
        activitiesDataSource.outage(1, 25);

        UUID created = process("created", "order.created");

        assertThat(activitiesDataSource.refused()).isEqualTo(25);
        assertThat(status(created)).isEqualTo("PROCESSED");
        assertThat(openDeadLetters()).isZero();
        assertThat(entity()).isEqualTo("created@1");
        await().atMost(Duration.ofSeconds(10)).until(() -> databaseWaits() == 2);
    }

    @Test
    void databaseDownEvenAtTheStartIsWaitedOut() {
        start(InboxSettings.defaults());
        activitiesDataSource.outage(0, 15);
        UUID created = receive("created", "order.created");

        InboxFixtures.workflow(client, "created").process(created, null);

        assertThat(status(created)).isEqualTo("PROCESSED");
        assertThat(entity()).isEqualTo("created@1");
        assertThat(openDeadLetters()).isZero();
    }

    @Test
    void processingTwiceIsHarmless() {
        start(InboxSettings.defaults());
        process("created", "order.created");
        UUID paid = process("paid", "order.paid");
        String firstRun = runId("paid");

        InboxFixtures.workflow(client, "paid").process(paid, null);

        assertThat(runId("paid")).as("a second run really happened").isNotEqualTo(firstRun);
        assertThat(entity()).isEqualTo("paid@2");
        assertThat(row(paid, "attempts")).isEqualTo("1");
        assertThat(outboxEventTypes()).containsExactly("order.payment_confirmed");
        assertThat(running("paid").status().outcome()).isEqualTo("APPLIED");
    }

    private String runId(String eventId) {
        return client.newUntypedWorkflowStub(InboxEventWorkflow.workflowId(PARTNER, eventId))
                .describe()
                .getExecution()
                .getRunId();
    }

    @Test
    @EnabledIfSystemProperty(named = RecordedHistories.RECORD_INTO, matches = ".+")
    void recordApplied() {
        start(InboxSettings.defaults());

        process("created", "order.created");

        assertThat(entity()).isEqualTo("created@1");
        record("created", "inbound-applied.json");
    }

    @Test
    @EnabledIfSystemProperty(named = RecordedHistories.RECORD_INTO, matches = ".+")
    void recordDeferredThenReleased() {
        start(new InboxSettings(Duration.ofHours(1), Duration.ofHours(24)));
        process("created", "order.created");
        UUID shipped = receive("shipped", "order.shipped");
        InboxFixtures.start(client, "shipped", shipped);
        await().atMost(Duration.ofSeconds(20)).until(() -> status(shipped).equals("DEFERRED"));

        process("paid", "order.paid");
        waitForResult("shipped");

        assertThat(entity()).isEqualTo("shipped@3");
        record("shipped", "inbound-deferred-then-released.json");
        record("paid", "inbound-applied-releasing-a-deferred-event.json");
    }

    @Test
    @EnabledIfSystemProperty(named = RecordedHistories.RECORD_INTO, matches = ".+")
    void recordReleasedWithinHalfAMinuteOfItsRecheck() {
        // Every release of a wait this short comes within TimerOrSignal.ABOUT_TO_FIRE of the recheck.
        start(new InboxSettings(Duration.ofSeconds(25), Duration.ofHours(24)));
        process("created", "order.created");
        UUID shipped = receive("shipped", "order.shipped");
        InboxFixtures.start(client, "shipped", shipped);
        await().atMost(Duration.ofSeconds(20)).until(() -> status(shipped).equals("DEFERRED"));

        UUID paid = receive("paid", "order.paid");
        InboxFixtures.start(client, "paid", paid);
        // Waiting on the database, not on a workflow result, keeps Temporal's clock from skipping to the recheck.
        await().atMost(Duration.ofSeconds(20)).until(() -> status(shipped).equals("PROCESSED"));

        waitForResult("shipped");
        assertThat(eventTypes("shipped")).contains(EventType.EVENT_TYPE_TIMER_CANCELED);
        record("shipped", "inbound-released-within-half-a-minute-of-its-recheck.json");
    }

    @Test
    @EnabledIfSystemProperty(named = RecordedHistories.RECORD_INTO, matches = ".+")
    void recordDeferralThatExpires() {
        start(new InboxSettings(Duration.ofHours(1), Duration.ofHours(4)));
        process("created", "order.created");

        UUID shipped = process("shipped", "order.shipped");

        assertThat(status(shipped)).isEqualTo("QUARANTINED");
        record("shipped", "inbound-deferral-expired.json");
    }

    @Test
    @EnabledIfSystemProperty(named = RecordedHistories.RECORD_INTO, matches = ".+")
    void recordStale() {
        start(InboxSettings.defaults());
        process("created", "order.created");
        process("paid", "order.paid");

        UUID latePaid = process("paid-again", "order.paid");

        assertThat(row(latePaid, "outcome")).isEqualTo("STALE");
        record("paid-again", "inbound-stale.json");
    }

    @Test
    @EnabledIfSystemProperty(named = RecordedHistories.RECORD_INTO, matches = ".+")
    void recordRejected() {
        start(InboxSettings.defaults());

        UUID refund = process("refund", "order.refunded");

        assertThat(status(refund)).isEqualTo("QUARANTINED");
        record("refund", "inbound-rejected.json");
    }

    @Test
    @EnabledIfSystemProperty(named = RecordedHistories.RECORD_INTO, matches = ".+")
    void recordDatabaseOutageWaitedOut() {
        start(InboxSettings.defaults());
        // plan gets its connection; decide is refused through more than one round of its retries.
        activitiesDataSource.outage(1, 15);

        UUID created = process("created", "order.created");

        assertThat(status(created)).isEqualTo("PROCESSED");
        assertThat(databaseWaits()).isPositive();
        record("created", "inbound-database-outage-waited-out.json");
    }

    private void record(String eventId, String fileName) {
        RecordedHistories.save(client, InboxEventWorkflow.workflowId(PARTNER, eventId), fileName);
    }

    private UUID process(String eventId, String eventType) {
        return process(eventId, eventType, "order", ORDER);
    }

    /** Receives the event and runs its workflow to the end. */
    private UUID process(String eventId, String eventType, String aggregateType, String aggregateId) {
        UUID id = InboxFixtures.receive(db, eventId, eventType, aggregateType, aggregateId, payload(eventType))
                .orElseThrow();
        InboxFixtures.workflow(client, eventId).process(id, null);
        return id;
    }

    private UUID receive(String eventId, String eventType) {
        return InboxFixtures.receive(db, eventId, eventType, "order", ORDER, payload(eventType))
                .orElseThrow();
    }

    private static String payload(String eventType) {
        return "{\"type\": \"" + eventType + "\", \"orderId\": \"" + ORDER + "\"}";
    }

    /** A stub bound to the event's existing workflow, for queries. */
    private InboxEventWorkflow running(String eventId) {
        return client.newWorkflowStub(InboxEventWorkflow.class, InboxEventWorkflow.workflowId(PARTNER, eventId));
    }

    private void waitForResult(String eventId) {
        client.newUntypedWorkflowStub(InboxEventWorkflow.workflowId(PARTNER, eventId))
                .getResult(Void.class);
    }

    private List<HistoryEvent> history(String eventId) {
        return client.fetchHistory(InboxEventWorkflow.workflowId(PARTNER, eventId))
                .getEvents();
    }

    private List<EventType> eventTypes(String eventId) {
        return history(eventId).stream().map(HistoryEvent::getEventType).toList();
    }

    private void assertReplays(String eventId) {
        WorkflowExecutionHistory recorded = client.fetchHistory(InboxEventWorkflow.workflowId(PARTNER, eventId));
        try {
            WorkflowReplayer.replayWorkflowExecution(recorded, InboxEventWorkflowImpl.class);
        } catch (Exception e) {
            throw new AssertionError("history of " + eventId + " no longer replays", e);
        }
    }

    private double databaseWaits() {
        return metrics.find("relaybox_database_waits").counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
    }

    private String entity() {
        return db.withHandle(h -> h.createQuery(
                        "SELECT state || '@' || version FROM entities WHERE aggregate_type = 'order' AND aggregate_id = :id")
                .bind("id", ORDER)
                .mapTo(String.class)
                .findOne()
                .orElse("none"));
    }

    private String status(UUID id) {
        return row(id, "status");
    }

    private String row(UUID id, String column) {
        return db.withHandle(h -> h.createQuery("SELECT " + column + "::text FROM webhook_inbox WHERE id = :id")
                .bind("id", id)
                .mapTo(String.class)
                .one());
    }

    private List<String> rows(String expression) {
        return db.withHandle(h -> h.createQuery("SELECT " + expression + " FROM webhook_inbox ORDER BY received_at")
                .mapTo(String.class)
                .list());
    }

    private List<String> outboxEventTypes() {
        return strings("SELECT event_type FROM outbox_events ORDER BY created_at");
    }

    private List<String> strings(String sql) {
        return db.withHandle(h -> h.createQuery(sql).mapTo(String.class).list());
    }

    private int count(String sql) {
        return db.withHandle(h -> h.createQuery(sql).mapTo(int.class).one());
    }

    private String deadLetterReason(UUID inboxId) {
        return db.withHandle(h -> h.createQuery(
                        "SELECT reason FROM dead_letters WHERE source = 'INBOX' AND reference = :id AND resolved_at IS NULL")
                .bind("id", inboxId)
                .mapTo(String.class)
                .one());
    }

    private int openDeadLetters() {
        return count("SELECT count(*) FROM dead_letters WHERE resolved_at IS NULL");
    }
}
