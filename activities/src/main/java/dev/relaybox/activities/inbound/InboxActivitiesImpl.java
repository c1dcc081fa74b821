package dev.relaybox.activities.inbound;

import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.activities.statemachine.StateMachine;
import dev.relaybox.store.DatabaseFailures;
import dev.relaybox.store.DeadLetterSource;
import dev.relaybox.store.InboxSettings;
import dev.relaybox.store.InboxStore;
import dev.relaybox.workflows.inbound.InboxActivities;
import dev.relaybox.workflows.inbound.InboxOutcome;
import dev.relaybox.workflows.inbound.InboxPlan;
import io.micrometer.core.instrument.MeterRegistry;
import io.temporal.failure.ApplicationFailure;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

public final class InboxActivitiesImpl implements InboxActivities {
    private static final Logger LOG = LoggerFactory.getLogger(InboxActivitiesImpl.class);

    private final Jdbi jdbi;
    private final InboxSettings settings;
    private final DeadLetters deadLetters;
    private final InboxProcessor processor;

    /**
     * {@code machines} is keyed by aggregate type; an event for a type without one is quarantined. Events the
     * {@code routes} match are forwarded to their endpoints through the outbox; how late each applied event was is
     * recorded in {@code metrics}.
     */
    public InboxActivitiesImpl(
            Jdbi jdbi,
            Map<String, StateMachine> machines,
            InboundRoutes routes,
            InboxSettings settings,
            DeadLetters deadLetters,
            MeterRegistry metrics) {
        this.jdbi = jdbi;
        this.settings = settings;
        this.deadLetters = deadLetters;
        this.processor = new InboxProcessor(machines, routes, deadLetters, settings, metrics);
    }

    @Override
    public InboxPlan plan(UUID inboxId) {
        // One handle: one connection for the whole read.
        return DatabaseFailures.translating(() -> jdbi.withExtension(
                        InboxStore.class,
                        store -> store.find(inboxId)
                                .map(row -> settings.plan(
                                        row.partnerName(),
                                        row.eventType(),
                                        row.aggregate() == null
                                                ? null
                                                : row.aggregate().toString(),
                                        store.deferredSince(inboxId).orElse(null)))))
                .orElseThrow(() -> ApplicationFailure.newNonRetryableFailure(
                        "inbox row " + inboxId + " does not exist", "InboxRowMissing"));
    }

    @Override
    public void recordDeferralStart(UUID inboxId, Instant deferredSince) {
        DatabaseFailures.translating(() -> jdbi.useExtension(
                InboxStore.class, store -> store.recordDeferralStart(inboxId, deferredSince, settings.maxDeferral())));
    }

    @Override
    public InboxOutcome decide(UUID inboxId) {
        try (MDC.MDCCloseable ignored = MDC.putCloseable("inboxId", inboxId.toString())) {
            InboxProcessor.Result result =
                    DatabaseFailures.translating(() -> jdbi.inTransaction(h -> processor.process(h, inboxId)));
            result.deadLetter().ifPresent(deadLetters::announce);
            InboxOutcome outcome = result.outcome();
            LOG.info(
                    "inbox event {}: {}{} ({}, attempt {})",
                    inboxId,
                    outcome.alreadyFinished() ? "already " : "",
                    outcome.outcome(),
                    outcome.reason(),
                    outcome.attempts());
            return outcome;
        }
    }

    @Override
    public void deadLetter(UUID inboxId, String reason, String lastError) {
        Optional<DeadLetters.DeadLetter> created = DatabaseFailures.translating(() -> jdbi.inTransaction(h -> {
            InboxStore store = h.attach(InboxStore.class);
            if (!store.markQuarantined(inboxId, lastError)) {
                return Optional.empty();
            }
            InboxStore.InboxRow row = store.find(inboxId).orElseThrow();
            return deadLetters.record(
                    h,
                    DeadLetterSource.INBOX,
                    inboxId,
                    row.partnerName(),
                    row.eventType(),
                    reason,
                    lastError,
                    row.attempts());
        }));
        created.ifPresent(deadLetters::announce);
    }
}
