package dev.relaybox.activities.outbound;

import dev.relaybox.activities.store.Circuit;
import dev.relaybox.activities.store.EndpointFastPath;
import dev.relaybox.activities.store.EndpointFastPath.Admittance;
import dev.relaybox.activities.store.EndpointStore;
import dev.relaybox.activities.store.EndpointStore.DeliveryContext;
import dev.relaybox.activities.store.EndpointStore.State;
import dev.relaybox.workflows.outbound.Admission;
import dev.relaybox.workflows.outbound.AttemptResult;
import dev.relaybox.workflows.outbound.AttemptResult.Outcome;
import dev.relaybox.workflows.outbound.CircuitState;
import dev.relaybox.workflows.outbound.EndpointControlActivities;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import io.micrometer.core.instrument.MeterRegistry;
import io.temporal.activity.Activity;
import io.temporal.client.WorkflowClient;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Endpoint controls on PostgreSQL. Each decision locks the endpoint's {@code endpoint_state} row, so however many
 * workers ask at once they see one circuit, one rate-limit schedule and one set of in-flight slots. Times are
 * the asking workflow's clock (the real clock in production; skipped ahead in tests).
 */
public final class EndpointControlActivitiesImpl implements EndpointControlActivities, SendGate {
    private static final Logger LOG = LoggerFactory.getLogger(EndpointControlActivitiesImpl.class);
    private static final Duration SHORTEST_WAIT = Duration.ofSeconds(1);
    private static final int MAX_WAKE_UPS = 1000;
    /** The gate only evens out jitter; a longer hold means the reserved schedule was not followed. */
    private static final Duration LONGEST_GATE_HOLD = Duration.ofSeconds(5);

    private final Jdbi jdbi;
    private final CircuitSettings settings;
    private final MeterRegistry metrics;

    public EndpointControlActivitiesImpl(Jdbi jdbi, CircuitSettings settings, MeterRegistry metrics) {
        this.jdbi = jdbi;
        this.settings = settings;
        this.metrics = metrics;
    }

    @Override
    public Admission admit(UUID deliveryId, Instant now) {
        // Most endpoints have no limits: one read without locks or writes lets their deliveries go.
        Optional<Admittance> quick = jdbi.withExtension(EndpointFastPath.class, dao -> dao.admittance(deliveryId));
        if (quick.isPresent() && quick.get().goesAtOnce()) {
            return new Admission(
                    true, 0, "", quick.get().endpointId(), quick.get().ordered());
        }
        return jdbi.inTransaction(h -> {
            EndpointStore dao = h.attach(EndpointStore.class);
            DeliveryContext ctx = context(dao, deliveryId);
            if (!ctx.status().attemptable() || !ctx.enabled()) {
                // Finished or disabled: the attempt itself knows what to do with it.
                return go(ctx, 0, "");
            }
            if (ctx.ordered()) {
                Optional<UUID> earlier =
                        dao.earlierUnfinished(ctx.endpointId(), ctx.aggregateType(), ctx.aggregateId(), ctx.seq());
                if (earlier.isPresent()) {
                    dao.markWaiting(deliveryId, "ORDER");
                    return wait(
                            ctx,
                            settings.recheck(),
                            "waiting for the earlier event " + earlier.get() + " of " + ctx.aggregate()
                                    + " to be delivered or dead-lettered");
                }
            }
            dao.ensureState(ctx.endpointId());
            State state = dao.lockState(ctx.endpointId());
            if (state.open()) {
                return whileOpen(dao, ctx, state, now);
            }
            if (ctx.maxInFlight() != null) {
                dao.dropExpiredLeases(ctx.endpointId(), now);
                if (dao.leasesHeldByOthers(ctx.endpointId(), deliveryId) >= ctx.maxInFlight()) {
                    dao.markWaiting(deliveryId, "IN_FLIGHT");
                    return wait(
                            ctx,
                            jittered(settings.recheck()),
                            "all " + ctx.maxInFlight() + " in-flight slots are taken; waiting for one");
                }
            }
            Duration wait = Duration.ZERO;
            if (ctx.rateLimit() != null) {
                Instant sendAt = reserveRateSlot(dao, ctx, state, now);
                wait = Duration.between(now, sendAt);
            }
            if (ctx.maxInFlight() != null) {
                dao.holdLease(deliveryId, ctx.endpointId(), now.plus(wait).plus(settings.leaseTime()));
            }
            dao.markWaiting(deliveryId, wait.isZero() ? null : "RATE");
            return go(
                    ctx,
                    wait.toMillis(),
                    wait.isZero()
                            ? ""
                            : "rate limit " + ctx.rateLimit() + "/s: sending at "
                                    + now.plus(wait).truncatedTo(ChronoUnit.MILLIS));
        });
    }

    /**
     * While the circuit is open exactly one delivery probes per interval: the one named {@code next_prober}
     * (the first to ask), or anyone once that one failed to show up for a whole interval. The rest sleep long
     * and are woken by the signal sent when the circuit closes.
     */
    private Admission whileOpen(EndpointStore dao, DeliveryContext ctx, State state, Instant now) {
        UUID me = ctx.deliveryId();
        Instant nextProbeAt = state.nextProbeAt() == null ? now : state.nextProbeAt();
        boolean probeInFlight = state.probeDelivery() != null
                && !state.probeDelivery().equals(me)
                && state.probeLeaseUntil() != null
                && state.probeLeaseUntil().isAfter(now);
        boolean proberAbsent = state.nextProber() != null && now.isAfter(nextProbeAt.plus(settings.probeInterval()));
        boolean mine = state.nextProber() == null || state.nextProber().equals(me) || proberAbsent;
        if (mine && !probeInFlight && !now.isBefore(nextProbeAt)) {
            dao.saveState(new State(
                    state.endpointId(),
                    state.rateTat(),
                    state.circuit(),
                    state.consecutiveFailures(),
                    state.failingSince(),
                    state.openedAt(),
                    now.plus(settings.probeInterval()),
                    null,
                    me,
                    now.plus(settings.leaseTime()),
                    state.lastSuccessAt(),
                    state.lastFailureAt()));
            dao.markWaiting(me, null);
            return go(ctx, 0, "probe");
        }
        if (mine && !me.equals(state.nextProber())) {
            dao.saveState(new State(
                    state.endpointId(),
                    state.rateTat(),
                    state.circuit(),
                    state.consecutiveFailures(),
                    state.failingSince(),
                    state.openedAt(),
                    state.nextProbeAt(),
                    me,
                    state.probeDelivery(),
                    state.probeLeaseUntil(),
                    state.lastSuccessAt(),
                    state.lastFailureAt()));
        }
        Duration wait;
        if (!mine) {
            wait = jittered(settings.probeInterval().multipliedBy(10));
        } else if (probeInFlight) {
            wait = settings.probeInterval();
        } else {
            wait = Duration.between(now, nextProbeAt);
        }
        dao.markWaiting(me, "CIRCUIT");
        return wait(
                ctx,
                wait,
                "circuit open after " + state.consecutiveFailures() + " consecutive failures since "
                        + state.failingSince() + "; next probe at " + nextProbeAt);
    }

    /**
     * GCRA: the limit as a schedule. Each request takes the next slot, {@code 1/rate} after the previous one; up
     * to {@code burst} slots may be taken early. Over any window W at most {@code burst + rate * W} requests go.
     */
    private static Instant reserveRateSlot(EndpointStore dao, DeliveryContext ctx, State state, Instant now) {
        long intervalNanos = Math.round(1_000_000_000d / ctx.rateLimit());
        Duration interval = Duration.ofNanos(intervalNanos);
        Duration tolerance = interval.multipliedBy(ctx.controls().effectiveBurst() - 1L);
        Instant tat = state.rateTat() == null || state.rateTat().isBefore(now) ? now : state.rateTat();
        Instant earliest = tat.minus(tolerance);
        Instant sendAt = earliest.isAfter(now) ? earliest : now;
        dao.saveState(new State(
                state.endpointId(),
                tat.plus(interval),
                state.circuit(),
                state.consecutiveFailures(),
                state.failingSince(),
                state.openedAt(),
                state.nextProbeAt(),
                state.nextProber(),
                state.probeDelivery(),
                state.probeLeaseUntil(),
                state.lastSuccessAt(),
                state.lastFailureAt()));
        return sendAt;
    }

    /**
     * The rate limit once more at the moment of sending, on the real clock: a delivery reserved its slot in
     * {@link #admit} and waited for it on a durable timer, but timers, workflow tasks and activity dispatch add
     * uneven delays that can bunch requests together. Holding each request until it conforms keeps any one
     * second within {@code rate + burst}; it is short, since the reserved schedule already conforms.
     */
    @Override
    public void awaitTurn(UUID deliveryId) {
        Instant sendAt = jdbi.inTransaction(h -> {
            EndpointStore dao = h.attach(EndpointStore.class);
            DeliveryContext ctx = context(dao, deliveryId);
            Instant now = Instant.now();
            if (ctx.rateLimit() == null) {
                return now;
            }
            dao.ensureState(ctx.endpointId());
            dao.lockState(ctx.endpointId());
            Duration interval = Duration.ofNanos(Math.round(1_000_000_000d / ctx.rateLimit()));
            Duration tolerance = interval.multipliedBy(ctx.controls().effectiveBurst() - 1L);
            Instant tat =
                    dao.sendTat(ctx.endpointId()).filter(t -> t.isAfter(now)).orElse(now);
            Instant earliest = tat.minus(tolerance);
            Instant at = earliest.isAfter(now) ? earliest : now;
            if (Duration.between(now, at).compareTo(LONGEST_GATE_HOLD) > 0) {
                at = now.plus(LONGEST_GATE_HOLD);
            }
            dao.setSendTat(ctx.endpointId(), tat.plus(interval));
            return at;
        });
        long millis = Duration.between(Instant.now(), sendAt).toMillis();
        if (millis > 0) {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** What {@link #settle} changed, to act on after its transaction committed. */
    private record Settled(
            DeliveryContext ctx,
            CircuitState circuit,
            boolean opened,
            boolean closed,
            boolean disabled,
            boolean slotFreed,
            int failures) {}

    @Override
    public CircuitState settle(UUID deliveryId, AttemptResult result, Instant now) {
        boolean delivered = result.outcome() == Outcome.DELIVERED;
        if (answered(result)
                && jdbi.withExtension(
                        EndpointFastPath.class, dao -> dao.settleHealthyAnswer(deliveryId, delivered, now))) {
            // Nothing was held and the circuit had no failure to forget: there is nobody to wake.
            return CircuitState.closed();
        }
        Settled settled = jdbi.inTransaction(h -> {
            EndpointStore dao = h.attach(EndpointStore.class);
            DeliveryContext ctx = context(dao, deliveryId);
            boolean slotFreed = dao.releaseLease(deliveryId) && ctx.maxInFlight() != null;
            dao.markWaiting(deliveryId, null);
            dao.ensureState(ctx.endpointId());
            State s = dao.lockState(ctx.endpointId());
            boolean failure = isFailure(result);
            boolean answered = answered(result);
            boolean probe = deliveryId.equals(s.probeDelivery());
            Circuit circuit = s.circuit();
            int failures = s.consecutiveFailures();
            Instant failingSince = s.failingSince();
            Instant openedAt = s.openedAt();
            Instant nextProbeAt = s.nextProbeAt();
            UUID nextProber = s.nextProber();
            Instant rateTat = s.rateTat();
            Instant lastSuccess = result.outcome() == Outcome.DELIVERED ? now : s.lastSuccessAt();
            Instant lastFailure = failure ? now : s.lastFailureAt();
            boolean opened = false;
            boolean closed = false;
            boolean disabled = false;
            if (answered) {
                failures = 0;
                failingSince = null;
                if (s.open()) {
                    closed = true;
                    circuit = circuit.afterAnswer();
                    openedAt = null;
                    nextProbeAt = null;
                    nextProber = null;
                }
            } else if (failure) {
                failures++;
                failingSince = failingSince == null ? now : failingSince;
                circuit = circuit.afterFailure(failures, settings.failureThreshold());
                if (circuit.open() && !s.open()) {
                    opened = true;
                    openedAt = now;
                    nextProbeAt = now.plus(settings.probeInterval());
                    nextProber = null;
                    // Slots reserved before the outage must not delay the first deliveries after it.
                    rateTat = null;
                }
                if (ctx.enabled() && !now.isBefore(failingSince.plus(settings.disableAfter()))) {
                    disabled = true;
                    dao.setEnabled(
                            ctx.endpointId(),
                            false,
                            "failing continuously since "
                                    + failingSince + " (" + failures + " consecutive failures; last: "
                                    + result.summary()
                                    + "); disabled at " + now);
                }
            }
            dao.saveState(new State(
                    s.endpointId(),
                    rateTat,
                    circuit,
                    failures,
                    failingSince,
                    openedAt,
                    nextProbeAt,
                    nextProber,
                    probe ? null : s.probeDelivery(),
                    probe ? null : s.probeLeaseUntil(),
                    lastSuccess,
                    lastFailure));
            boolean open = circuit.open() && !disabled;
            return new Settled(
                    ctx,
                    new CircuitState(open, open ? nextProbeAt : null),
                    opened,
                    closed,
                    disabled,
                    slotFreed,
                    failures);
        });
        announce(settled);
        return settled.circuit();
    }

    private void announce(Settled settled) {
        DeliveryContext ctx = settled.ctx();
        if (settled.opened()) {
            LOG.warn(
                    "opened the circuit of endpoint {} after {} consecutive failures; its deliveries wait for a probe "
                            + "every {} instead of spending attempts",
                    ctx.endpointName(),
                    settled.failures(),
                    settings.probeInterval());
            metrics.counter("relaybox.endpoint.circuit.opened", "endpoint", ctx.endpointName())
                    .increment();
        }
        if (settled.closed()) {
            LOG.info(
                    "closed the circuit of endpoint {}: it answered again; releasing its waiting deliveries",
                    ctx.endpointName());
        }
        if (settled.disabled()) {
            LOG.error(
                    "disabled endpoint {}: failing continuously for {} ({} consecutive failures); its events stay "
                            + "recorded and replayable",
                    ctx.endpointName(),
                    settings.disableAfter(),
                    settled.failures());
            metrics.counter("relaybox.endpoints.disabled", "endpoint", ctx.endpointName(), "reason", "failing")
                    .increment();
        }
        if (settled.closed() || settled.disabled()) {
            wakeWaiting(ctx.endpointId(), "CIRCUIT", MAX_WAKE_UPS);
        }
        if (settled.slotFreed()) {
            wakeWaiting(ctx.endpointId(), "IN_FLIGHT", 1);
        }
    }

    @Override
    public void finished(UUID deliveryId) {
        record Finished(DeliveryContext ctx, boolean slotFreed) {}
        Finished finished = jdbi.inTransaction(h -> {
            EndpointStore dao = h.attach(EndpointStore.class);
            DeliveryContext ctx = context(dao, deliveryId);
            boolean slotFreed = dao.releaseLease(deliveryId) && ctx.maxInFlight() != null;
            dao.markWaiting(deliveryId, null);
            return new Finished(ctx, slotFreed);
        });
        DeliveryContext ctx = finished.ctx();
        if (finished.slotFreed()) {
            wakeWaiting(ctx.endpointId(), "IN_FLIGHT", 1);
        }
        if (ctx.ordered()) {
            jdbi.withExtension(
                            EndpointStore.class,
                            dao -> dao.nextInOrder(ctx.endpointId(), ctx.aggregateType(), ctx.aggregateId(), ctx.seq()))
                    .ifPresent(outboxId -> wake(outboxId, ctx.endpointId()));
        }
    }

    /** The receiver answered (and not with a failure or a 429): the circuit forgets its failures. */
    static boolean answered(AttemptResult result) {
        return result.outcome() == Outcome.DELIVERED
                || !isFailure(result) && result.statusCode() != 0 && result.statusCode() != 429;
    }

    /** Connection errors, timeouts, 408 and 5xx: the receiver is not working. Other answers show it is. */
    static boolean isFailure(AttemptResult result) {
        if (result.outcome() != Outcome.RETRYABLE) {
            return false;
        }
        int status = result.statusCode();
        return status == 0 || status == 408 || status >= 500;
    }

    private void wakeWaiting(UUID endpointId, String waitingFor, int limit) {
        List<UUID> outboxIds =
                jdbi.withExtension(EndpointStore.class, dao -> dao.waiting(endpointId, waitingFor, limit));
        outboxIds.forEach(outboxId -> wake(outboxId, endpointId));
    }

    private static void wake(UUID outboxId, UUID endpointId) {
        try {
            WorkflowClient client = Activity.getExecutionContext().getWorkflowClient();
            client.newUntypedWorkflowStub(
                            OutboxDeliveryWorkflow.workflowId(outboxId), Optional.empty(), Optional.empty())
                    .signal("endpointReady", endpointId);
        } catch (RuntimeException e) {
            // Finished or not running: it asks again on its own when (re)started.
            LOG.debug("could not wake {} for endpoint {}: {}", outboxId, endpointId, e.toString());
        }
    }

    private static DeliveryContext context(EndpointStore dao, UUID deliveryId) {
        return dao.deliveryContext(deliveryId)
                .orElseThrow(() -> ApplicationFailure.newNonRetryableFailure(
                        "delivery " + deliveryId + " does not exist", "DeliveryMissing"));
    }

    private static Admission go(DeliveryContext ctx, long waitMillis, String reason) {
        return new Admission(true, waitMillis, reason, ctx.endpointId(), ctx.ordered());
    }

    private static Admission wait(DeliveryContext ctx, Duration wait, String reason) {
        Duration atLeast = wait.compareTo(SHORTEST_WAIT) < 0 ? SHORTEST_WAIT : wait;
        return new Admission(false, atLeast.toMillis(), reason, ctx.endpointId(), ctx.ordered());
    }

    /** Spreads waits by ±20% so waiters do not all ask again at the same moment. */
    private static Duration jittered(Duration base) {
        double factor = 0.8 + 0.4 * ThreadLocalRandom.current().nextDouble();
        return Duration.ofMillis(Math.round(base.toMillis() * factor));
    }
}
