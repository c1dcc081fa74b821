package dev.relaybox.activities.outbound;

import dev.relaybox.activities.outbound.controls.CircuitBreaker;
import dev.relaybox.activities.outbound.controls.CircuitBreaker.CircuitChange;
import dev.relaybox.activities.outbound.controls.CircuitBreaker.OpenTurn;
import dev.relaybox.activities.outbound.controls.Leases;
import dev.relaybox.activities.outbound.controls.RateLimit;
import dev.relaybox.store.EndpointAttemptStore;
import dev.relaybox.store.EndpointAttemptStore.GateSnapshot;
import dev.relaybox.store.EndpointState;
import dev.relaybox.store.EndpointStore;
import dev.relaybox.store.EndpointStore.DeliveryContext;
import dev.relaybox.workflows.outbound.AttemptResult;
import dev.relaybox.workflows.outbound.CircuitState;
import dev.relaybox.workflows.outbound.EndpointControlActivities;
import dev.relaybox.workflows.outbound.GateDecision;
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
public final class EndpointControlActivitiesImpl implements EndpointControlActivities {
    private static final Logger LOG = LoggerFactory.getLogger(EndpointControlActivitiesImpl.class);
    private static final Duration SHORTEST_WAIT = Duration.ofSeconds(1);
    private static final int MAX_WAKE_UPS = 1000;
    /** The gate only evens out jitter; a longer hold means the reserved schedule was not followed. */
    private static final Duration LONGEST_GATE_HOLD = Duration.ofSeconds(5);

    private final Jdbi jdbi;
    private final CircuitSettings settings;
    private final CircuitBreaker breaker;
    private final MeterRegistry metrics;

    public EndpointControlActivitiesImpl(Jdbi jdbi, CircuitSettings settings, MeterRegistry metrics) {
        this.jdbi = jdbi;
        this.settings = settings;
        this.breaker = new CircuitBreaker(settings);
        this.metrics = metrics;
    }

    @Override
    public GateDecision admit(UUID deliveryId, Instant now) {
        // Most endpoints have no limits: one read without locks or writes lets their deliveries go.
        Optional<GateSnapshot> quick =
                jdbi.withExtension(EndpointAttemptStore.class, dao -> dao.gateSnapshot(deliveryId));
        if (quick.isPresent() && quick.get().goesAtOnce()) {
            return new GateDecision(
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
            EndpointState state = dao.lockState(ctx.endpointId());
            if (state.open()) {
                return whileOpen(dao, ctx, state, now);
            }
            Leases leases = ctx.maxInFlight() == null ? null : new Leases(ctx.maxInFlight(), settings.leaseTime());
            if (leases != null) {
                dao.dropExpiredLeases(ctx.endpointId(), now);
                if (leases.full(dao.leasesHeldByOthers(ctx.endpointId(), deliveryId))) {
                    dao.markWaiting(deliveryId, "IN_FLIGHT");
                    return wait(
                            ctx,
                            jittered(settings.recheck()),
                            "all " + ctx.maxInFlight() + " in-flight slots are taken; waiting for one");
                }
                if (tenantBound(ctx)) {
                    dao.lockTenantSlots(ctx.tenant());
                    if (dao.tenantLeasesHeldByOthers(ctx.tenant(), deliveryId, now) >= settings.tenantMaxInFlight()) {
                        dao.markWaiting(deliveryId, "IN_FLIGHT");
                        return wait(
                                ctx,
                                jittered(settings.recheck()),
                                "all " + settings.tenantMaxInFlight() + " in-flight slots of tenant " + ctx.tenant()
                                        + " are taken; waiting for one");
                    }
                }
            }
            Duration wait = Duration.ZERO;
            if (ctx.rateLimit() != null) {
                RateLimit.Slot slot = rateLimit(ctx).reserve(state.rateTat(), now);
                dao.saveState(state.withRateTat(slot.nextTat()));
                wait = slot.waitFrom(now);
            }
            if (leases != null) {
                dao.holdLease(deliveryId, ctx.endpointId(), leases.heldUntil(now.plus(wait)));
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

    /** One delivery probes per interval ({@link CircuitBreaker#whileOpen}); the rest wait to be woken. */
    private GateDecision whileOpen(EndpointStore dao, DeliveryContext ctx, EndpointState state, Instant now) {
        UUID me = ctx.deliveryId();
        OpenTurn turn = breaker.whileOpen(state, me, now);
        turn.changed().ifPresent(dao::saveState);
        if (turn.probes()) {
            dao.markWaiting(me, null);
            return go(ctx, 0, "probe");
        }
        dao.markWaiting(me, "CIRCUIT");
        return wait(
                ctx,
                turn.spread() ? jittered(turn.waitFor()) : turn.waitFor(),
                "circuit open after " + state.consecutiveFailures() + " consecutive failures since "
                        + state.failingSince() + "; next probe at " + turn.nextProbeAt());
    }

    private static RateLimit rateLimit(DeliveryContext ctx) {
        return RateLimit.of(ctx.rateLimit(), ctx.controls().effectiveBurst());
    }

    /**
     * The rate limit once more at the moment of sending, on the real clock: a delivery reserved its slot in
     * {@link #admit} and waited for it on a durable timer, but timers, workflow tasks and activity dispatch add
     * uneven delays that can bunch requests together. Holding each request until it conforms keeps any one
     * second within {@code rate + burst}; it is short, since the reserved schedule already conforms. Called by an
     * attempt just before its request leaves.
     */
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
            RateLimit.Slot slot =
                    rateLimit(ctx).reserve(dao.sendTat(ctx.endpointId()).orElse(null), now);
            Instant at = slot.sendAt();
            if (Duration.between(now, at).compareTo(LONGEST_GATE_HOLD) > 0) {
                at = now.plus(LONGEST_GATE_HOLD);
            }
            dao.setSendTat(ctx.endpointId(), slot.nextTat());
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
    private record Settled(DeliveryContext ctx, CircuitChange circuitChange, boolean slotFreed) {}

    @Override
    public CircuitState settle(UUID deliveryId, AttemptResult result, Instant now) {
        boolean delivered = result.outcome() == AttemptResult.Outcome.DELIVERED;
        if (CircuitBreaker.answered(result)
                && jdbi.withExtension(
                        EndpointAttemptStore.class, dao -> dao.settleHealthyAnswer(deliveryId, delivered, now))) {
            // Nothing was held and the circuit had no failure to forget: there is nobody to wake.
            return CircuitState.closed();
        }
        Settled settled = jdbi.inTransaction(h -> {
            EndpointStore dao = h.attach(EndpointStore.class);
            DeliveryContext ctx = context(dao, deliveryId);
            boolean slotFreed = dao.releaseLease(deliveryId) && ctx.maxInFlight() != null;
            dao.markWaiting(deliveryId, null);
            dao.ensureState(ctx.endpointId());
            EndpointState s = dao.lockState(ctx.endpointId());
            CircuitChange circuitChange = breaker.afterAttempt(s, deliveryId, result, ctx.enabled(), now);
            EndpointState next = circuitChange.state();
            if (circuitChange.disables()) {
                dao.setEnabled(
                        ctx.endpointId(),
                        false,
                        "failing continuously since "
                                + next.failingSince() + " (" + next.consecutiveFailures()
                                + " consecutive failures; last: "
                                + result.summary()
                                + "); disabled at " + now);
            }
            dao.saveState(next);
            return new Settled(ctx, circuitChange, slotFreed);
        });
        announce(settled);
        return settled.circuitChange().circuit();
    }

    private void announce(Settled settled) {
        DeliveryContext ctx = settled.ctx();
        CircuitChange circuitChange = settled.circuitChange();
        int failures = circuitChange.state().consecutiveFailures();
        if (circuitChange.opened()) {
            LOG.warn(
                    "opened the circuit of endpoint {} after {} consecutive failures; its deliveries wait for a probe "
                            + "every {} instead of spending attempts",
                    ctx.endpointName(),
                    failures,
                    settings.probeInterval());
            metrics.counter("relaybox.endpoint.circuit.opened", EndpointTags.of(ctx.endpointId(), ctx.tenant()))
                    .increment();
        }
        if (circuitChange.closed()) {
            LOG.info(
                    "closed the circuit of endpoint {}: it answered again; releasing its waiting deliveries",
                    ctx.endpointName());
        }
        if (circuitChange.disables()) {
            LOG.error(
                    "disabled endpoint {}: failing continuously for {} ({} consecutive failures); its events stay "
                            + "recorded and replayable",
                    ctx.endpointName(),
                    settings.disableAfter(),
                    failures);
            metrics.counter(
                            "relaybox.endpoints.disabled",
                            EndpointTags.of(ctx.endpointId(), ctx.tenant()).and("reason", "failing"))
                    .increment();
        }
        if (circuitChange.closed() || circuitChange.disables()) {
            wakeWaiting(ctx.endpointId(), "CIRCUIT", MAX_WAKE_UPS);
        }
        if (settled.slotFreed()) {
            slotFreed(ctx);
        }
    }

    /** Whether {@code ctx}'s attempts count against its tenant's total as well as its endpoint's. */
    private boolean tenantBound(DeliveryContext ctx) {
        return ctx.tenant() != null && settings.tenantMaxInFlight() > 0;
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
            slotFreed(ctx);
        }
        if (ctx.ordered()) {
            jdbi.withExtension(
                            EndpointStore.class,
                            dao -> dao.nextInOrder(ctx.endpointId(), ctx.aggregateType(), ctx.aggregateId(), ctx.seq()))
                    .ifPresent(outboxId -> wake(outboxId, ctx.endpointId()));
        }
    }

    /**
     * A freed slot is its endpoint's and, under a tenant's bound, its tenant's too: the longest waiter of each is
     * woken to ask for it (one that finds it taken waits again, still the longest waiter). A delivery held by the
     * tenant's bound may wait on an endpoint with nothing in flight, whose own slots never free.
     */
    private void slotFreed(DeliveryContext ctx) {
        wakeWaiting(ctx.endpointId(), "IN_FLIGHT", 1);
        if (tenantBound(ctx)) {
            jdbi.withExtension(EndpointStore.class, dao -> dao.waitingInTenant(ctx.tenant(), "IN_FLIGHT", 1))
                    .forEach(waiter -> wake(waiter.outboxId(), waiter.endpointId()));
        }
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

    private static GateDecision go(DeliveryContext ctx, long waitMillis, String reason) {
        return new GateDecision(true, waitMillis, reason, ctx.endpointId(), ctx.ordered());
    }

    private static GateDecision wait(DeliveryContext ctx, Duration wait, String reason) {
        Duration atLeast = wait.compareTo(SHORTEST_WAIT) < 0 ? SHORTEST_WAIT : wait;
        return new GateDecision(false, atLeast.toMillis(), reason, ctx.endpointId(), ctx.ordered());
    }

    /** Spreads waits by ±20% so waiters do not all ask again at the same moment. */
    private static Duration jittered(Duration base) {
        double factor = 0.8 + 0.4 * ThreadLocalRandom.current().nextDouble();
        return Duration.ofMillis(Math.round(base.toMillis() * factor));
    }
}
