package dev.relaybox.activities.inbound;

import static dev.relaybox.activities.statemachine.StateMachine.NONE;

import dev.relaybox.activities.Traces;
import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.activities.statemachine.Decision;
import dev.relaybox.activities.statemachine.StateMachine;
import dev.relaybox.producer.Outbox;
import dev.relaybox.producer.OutboxEvent;
import dev.relaybox.store.DeadLetterSource;
import dev.relaybox.store.InboxSettings;
import dev.relaybox.store.InboxStore;
import dev.relaybox.store.InboxStore.Entity;
import dev.relaybox.store.InboxStore.InboxRow;
import dev.relaybox.store.OutboxStore;
import dev.relaybox.workflows.AggregateKey;
import dev.relaybox.workflows.inbound.InboxOutcome;
import dev.relaybox.workflows.inbound.InboxOutcome.Outcome;
import dev.relaybox.workflows.inbound.InboxState;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.opentelemetry.api.trace.Span;
import io.temporal.failure.ApplicationFailure;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/** Decides one inbox event and records the outcome on the caller's transaction: all of it commits, or none. */
final class InboxProcessor {
    /** The outcome, and the dead letter to announce once the transaction has committed. */
    record Result(InboxOutcome outcome, Optional<DeadLetters.DeadLetter> deadLetter) {}

    private final Map<String, StateMachine> machines;
    private final InboundRoutes routes;
    private final DeadLetters deadLetters;
    private final InboxSettings settings;
    private final MeterRegistry metrics;

    InboxProcessor(
            Map<String, StateMachine> machines,
            InboundRoutes routes,
            DeadLetters deadLetters,
            InboxSettings settings,
            MeterRegistry metrics) {
        this.machines = Map.copyOf(machines);
        this.routes = routes;
        this.deadLetters = deadLetters;
        this.settings = settings;
        this.metrics = metrics;
    }

    Result process(Handle handle, UUID inboxId) {
        InboxStore store = handle.attach(InboxStore.class);
        InboxRow unlocked = store.find(inboxId).orElseThrow(() -> missing(inboxId));
        if (unlocked.aggregate() != null) {
            // Aggregate before row, in every decision, so two decisions never hold what the other waits for.
            store.lockAggregate(unlocked.aggregate());
        }
        InboxRow row = store.lock(inboxId).orElseThrow(() -> missing(inboxId));
        if (row.finished()) {
            return new Result(recorded(store, row), Optional.empty());
        }
        Span span = InboundSpans.decision(row);
        try {
            Result result = decideAndRecord(handle, store, row, Traces.traceparent(span));
            InboundSpans.decided(span, result.outcome());
            if (result.outcome().outcome() == Outcome.APPLIED) {
                recordLateness(row);
            }
            return result;
        } catch (RuntimeException e) {
            span.recordException(e);
            span.end();
            throw e;
        }
    }

    /** How late the partner's event took effect: from its receipt to its applying or forwarding. */
    private void recordLateness(InboxRow row) {
        Timer.builder("relaybox.inbound.latency")
                .description("from an inbound webhook's receipt to its applying or forwarding, by partner")
                .tag("partner", row.partnerName())
                .publishPercentileHistogram()
                .maximumExpectedValue(Duration.ofHours(1))
                .register(metrics)
                .record(Duration.between(row.receivedAt(), Instant.now()));
    }

    /** {@code traceparent}: the decision's span, which the events it emits continue. */
    private Result decideAndRecord(Handle handle, InboxStore store, InboxRow row, String traceparent) {
        int attempts = store.countAttempt(row.id()).orElseThrow();
        Optional<Entity> entity = row.aggregate() != null ? store.entity(row.aggregate()) : Optional.empty();
        String state = entity.map(Entity::state).orElse(NONE);
        List<String> routed = routedEndpoints(row);
        Decision decision = decide(row, state, routed);
        if (forwardsOnly(decision)) {
            decision = inArrivalOrder(store, row, decision);
        }
        return switch (decision.outcome()) {
            case APPLIED ->
                forwardsOnly(decision)
                        ? forward(handle, store, row, state, routed, decision, attempts, traceparent)
                        : apply(handle, store, row, entity, decision, routed, attempts, traceparent);
            case DEFERRED -> {
                guarded(store.markDeferred(row.id(), decision.reason(), settings), row);
                yield result(Outcome.DEFERRED, decision.reason(), decision.waitingFor(), state, attempts, List.of());
            }
            case STALE -> {
                guarded(store.markProcessed(row.id(), Outcome.STALE, staleNote(decision.reason())), row);
                yield result(Outcome.STALE, decision.reason(), null, state, attempts, List.of());
            }
            case REJECTED -> {
                guarded(store.markQuarantined(row.id(), decision.reason()), row);
                Optional<DeadLetters.DeadLetter> deadLetter = deadLetters.record(
                        handle,
                        DeadLetterSource.INBOX,
                        row.id(),
                        row.partnerName(),
                        row.eventType(),
                        decision.reason(),
                        decision.reason(),
                        attempts);
                yield new Result(
                        new InboxOutcome(Outcome.REJECTED, decision.reason(), null, state, attempts, false, List.of()),
                        deadLetter);
            }
        };
    }

    /**
     * Malformed events never reach a state machine. A routed event its machine has no transition for (or whose
     * partner has no machine) is forwarded as received; everything else is the machine's call.
     */
    private Decision decide(InboxRow row, String state, List<String> routed) {
        if (row.eventType() == null || row.eventType().isBlank()) {
            return rejected("the event has no event type");
        }
        if (row.aggregate() == null) {
            return rejected(
                    row.aggregateType() == null || row.aggregateType().isBlank()
                            ? "the event has no aggregate type"
                            : "the event has no aggregate id (aggregate type '" + row.aggregateType() + "')");
        }
        StateMachine machine = machines.get(row.aggregateType());
        boolean transition = machine != null && machine.eventTypes().contains(row.eventType());
        if (!transition && !routed.isEmpty()) {
            return new Decision(Outcome.APPLIED, null, null, null, "forwarded to " + String.join(", ", routed));
        }
        if (machine == null) {
            return rejected("no state machine is configured for aggregate type '" + row.aggregateType()
                    + "' and no route of partner '" + row.partnerName() + "' matches event type '" + row.eventType()
                    + "'");
        }
        return machine.decide(state, row.eventType());
    }

    private List<String> routedEndpoints(InboxRow row) {
        return row.eventType() == null || row.eventType().isBlank()
                ? List.of()
                : routes.endpointsFor(row.partnerName(), row.eventType());
    }

    /** A forwarding changes no entity: it is the only APPLIED decision without a target state. */
    private static boolean forwardsOnly(Decision decision) {
        return decision.outcome() == Outcome.APPLIED && decision.targetState() == null;
    }

    /**
     * Without a state machine nothing else orders an aggregate's events: a forwarding waits until the partner's
     * routed events of the aggregate received before it are decided (their release, or the recheck, wakes it).
     */
    private Decision inArrivalOrder(InboxStore store, InboxRow row, Decision forwarding) {
        return store.earlierUndecided(row.id(), row.partnerName(), row.aggregate()).stream()
                .filter(earlier -> earlier.eventType() != null
                        && !routes.endpointsFor(row.partnerName(), earlier.eventType())
                                .isEmpty())
                .findFirst()
                .map(earlier -> new Decision(
                        Outcome.DEFERRED,
                        null,
                        null,
                        earlier.partnerEventId(),
                        "waiting for " + earlier.eventType() + " " + earlier.partnerEventId()
                                + ", received earlier for " + row.aggregate() + ", to be forwarded first"))
                .orElse(forwarding);
    }

    private Result forward(
            Handle handle,
            InboxStore store,
            InboxRow row,
            String state,
            List<String> routed,
            Decision decision,
            int attempts,
            String traceparent) {
        guarded(store.markProcessed(row.id(), Outcome.APPLIED, null), row);
        enqueueForwarded(handle, row, routed, traceparent);
        store.markReleased(row.aggregate());
        return result(
                Outcome.APPLIED, decision.reason(), null, state, attempts, store.deferredWorkflowIds(row.aggregate()));
    }

    /** The partner's event as received, to the routed endpoints only, once per inbox row. */
    private static void enqueueForwarded(Handle handle, InboxRow row, List<String> routed, String traceparent) {
        handle.attach(OutboxStore.class)
                .enqueueForwarded(new OutboxStore.Forwarded(
                        forwardedId(row.id()),
                        row.partnerName(),
                        row.partnerEventId(),
                        row.eventType(),
                        row.aggregate(),
                        row.payload(),
                        routed,
                        traceparent));
    }

    /** The outbox id (receivers' {@code webhook-id}) of an inbox row's forwarding: the same on every decision run. */
    static UUID forwardedId(UUID inboxId) {
        return UUID.nameUUIDFromBytes(("inbound-route:" + inboxId).getBytes(StandardCharsets.UTF_8));
    }

    private Result apply(
            Handle handle,
            InboxStore store,
            InboxRow row,
            Optional<Entity> entity,
            Decision decision,
            List<String> routed,
            int attempts,
            String traceparent) {
        AggregateKey aggregate = row.aggregate();
        // Both are guarded although the aggregate lock makes them certain: a writer that skips the lock fails loudly.
        boolean moved = entity.isEmpty()
                ? store.createEntity(aggregate, decision.targetState())
                : store.moveEntity(aggregate, entity.get().version(), decision.targetState());
        if (!moved) {
            throw new IllegalStateException("entity " + aggregate + " changed under the aggregate lock");
        }
        guarded(store.markProcessed(row.id(), Outcome.APPLIED, null), row);
        if (decision.emit() != null) {
            Outbox.enqueue(
                    handle,
                    new OutboxEvent(decision.emit(), aggregate.type(), aggregate.id(), row.payload())
                            .inTrace(traceparent));
        }
        if (!routed.isEmpty()) {
            enqueueForwarded(handle, row, routed, traceparent);
        }
        store.markReleased(aggregate);
        return result(
                Outcome.APPLIED,
                decision.reason(),
                null,
                decision.targetState(),
                attempts,
                store.deferredWorkflowIds(aggregate));
    }

    /** A finished row is reported as it was recorded; an APPLIED one still releases whatever is deferred now. */
    private static InboxOutcome recorded(InboxStore store, InboxRow row) {
        String state = row.aggregate() != null
                ? store.entity(row.aggregate()).map(Entity::state).orElse(NONE)
                : NONE;
        if (row.status() == InboxState.QUARANTINED) {
            return new InboxOutcome(Outcome.REJECTED, row.lastError(), null, state, row.attempts(), true, List.of());
        }
        if (row.outcome() == Outcome.STALE) {
            return new InboxOutcome(Outcome.STALE, row.lastError(), null, state, row.attempts(), true, List.of());
        }
        return new InboxOutcome(
                Outcome.APPLIED,
                row.eventType() + " was applied",
                null,
                state,
                row.attempts(),
                true,
                store.deferredWorkflowIds(row.aggregate()));
    }

    /** A stale row is PROCESSED; its {@code last_error} says why nothing changed, for the admin view. */
    static String staleNote(String reason) {
        return "stale, nothing changed: " + reason;
    }

    private static void guarded(boolean changed, InboxRow row) {
        // The row lock is held and the row was unfinished, so a miss is a bug, not a race: retry rather than lie.
        if (!changed) {
            throw new IllegalStateException("inbox row " + row.id() + " changed under its lock");
        }
    }

    private static Result result(
            Outcome outcome, String reason, String waitingFor, String state, int attempts, List<String> release) {
        return new Result(
                new InboxOutcome(outcome, reason, waitingFor, state, attempts, false, release), Optional.empty());
    }

    private static Decision rejected(String reason) {
        return new Decision(Outcome.REJECTED, null, null, null, reason);
    }

    private static ApplicationFailure missing(UUID inboxId) {
        return ApplicationFailure.newNonRetryableFailure("inbox row " + inboxId + " does not exist", "InboxRowMissing");
    }
}
