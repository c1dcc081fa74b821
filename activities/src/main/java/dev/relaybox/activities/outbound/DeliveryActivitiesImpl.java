package dev.relaybox.activities.outbound;

import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.activities.store.EndpointStore;
import dev.relaybox.workflows.outbound.AttemptResult;
import dev.relaybox.workflows.outbound.AttemptResult.Outcome;
import dev.relaybox.workflows.outbound.DeliveryActivities;
import dev.relaybox.workflows.outbound.DeliveryPhase;
import dev.relaybox.workflows.outbound.DeliveryPlan;
import dev.relaybox.workflows.outbound.DeliveryStatus;
import dev.relaybox.workflows.outbound.DeliveryTarget;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.temporal.activity.Activity;
import io.temporal.failure.ApplicationFailure;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

public final class DeliveryActivitiesImpl implements DeliveryActivities {
    private static final Logger LOG = LoggerFactory.getLogger(DeliveryActivitiesImpl.class);
    /** On a forwarded partner event: the partner it came from, and that partner's id for it. */
    public static final String PARTNER_HEADER = "relaybox-partner";

    public static final String PARTNER_EVENT_ID_HEADER = "relaybox-partner-event-id";

    private final Jdbi jdbi;
    private final DeliverySettings settings;
    private final WebhookSender sender;
    private final EndpointUrlPolicy urlPolicy;
    private final DeadLetters deadLetters;
    private final MeterRegistry metrics;
    private final SendGate sendGate;

    public DeliveryActivitiesImpl(
            Jdbi jdbi, DeliverySettings settings, DeadLetters deadLetters, MeterRegistry metrics) {
        this(jdbi, settings, deadLetters, metrics, HostResolver.SYSTEM, SendGate.NONE);
    }

    public DeliveryActivitiesImpl(
            Jdbi jdbi,
            DeliverySettings settings,
            DeadLetters deadLetters,
            MeterRegistry metrics,
            HostResolver resolver) {
        this(jdbi, settings, deadLetters, metrics, resolver, SendGate.NONE);
    }

    public DeliveryActivitiesImpl(
            Jdbi jdbi, DeliverySettings settings, DeadLetters deadLetters, MeterRegistry metrics, SendGate sendGate) {
        this(jdbi, settings, deadLetters, metrics, HostResolver.SYSTEM, sendGate);
    }

    public DeliveryActivitiesImpl(
            Jdbi jdbi,
            DeliverySettings settings,
            DeadLetters deadLetters,
            MeterRegistry metrics,
            HostResolver resolver,
            SendGate sendGate) {
        this.sendGate = sendGate;
        this.jdbi = jdbi;
        this.metrics = metrics;
        this.settings = settings;
        this.urlPolicy = new EndpointUrlPolicy(settings.addresses(), resolver);
        this.sender = new WebhookSender(settings, urlPolicy);
        this.deadLetters = deadLetters;
    }

    @Override
    public DeliveryPlan plan(UUID outboxId) {
        return jdbi.inTransaction(h -> {
            OutboxStore.Event event = h.attach(OutboxStore.class)
                    .event(outboxId)
                    .orElseThrow(() -> ApplicationFailure.newNonRetryableFailure(
                            "outbox row " + outboxId + " does not exist", "OutboxRowMissing"));
            DeliveryAttemptStore deliveries = h.attach(DeliveryAttemptStore.class);
            deliveries.createDeliveries(outboxId);
            var targets = deliveries.unfinished(outboxId).stream()
                    .map(t -> new DeliveryTarget(
                            t.deliveryId(), t.endpointName(), t.url(), t.attempts(), t.nextAttemptAt()))
                    .toList();
            return new DeliveryPlan(event.eventType(), event.aggregate().toString(), targets, settings.schedule());
        });
    }

    @Override
    public AttemptResult attempt(UUID deliveryId, int attempt) {
        DeliveryStore.AttemptContext ctx = jdbi.withExtension(
                        DeliveryAttemptStore.class, dao -> dao.attemptContext(deliveryId))
                .orElseThrow(() -> ApplicationFailure.newNonRetryableFailure(
                        "delivery " + deliveryId + " does not exist", "DeliveryMissing"));
        try (MDC.MDCCloseable outbox =
                        MDC.putCloseable("outboxId", ctx.outboxId().toString());
                MDC.MDCCloseable delivery = MDC.putCloseable("deliveryId", deliveryId.toString());
                Heartbeat alive = Heartbeat.whileRunning(Activity.getExecutionContext())) {
            if (ctx.status() == DeliveryStatus.DELIVERED) {
                // A re-run after a crash that happened once the receiver had it: do not send it again.
                return new AttemptResult(Outcome.DELIVERED, 0, -1, "already delivered");
            }
            Instant startedAt = scheduledTime();
            if (!ctx.enabled()
                    && jdbi.withExtension(
                            DeliveryStore.class, dao -> dao.pauseWhileDisabled(deliveryId, ctx.endpointId()))) {
                String paused = "endpoint " + ctx.endpointName() + " is disabled (" + ctx.disabledReason()
                        + "); paused until it is enabled";
                LOG.info("delivery {} {}", deliveryId, paused);
                return new AttemptResult(Outcome.PAUSED, 0, -1, paused);
            }
            // Only what needs no lookup: the sender resolves the host once, checks it and connects there.
            Optional<EndpointUrlPolicy.Refusal> refusal = urlPolicy.syntaxRefusal(ctx.url());
            if (refusal.isPresent()) {
                // A name that does not resolve now may resolve in a minute: the schedule decides, not one lookup.
                Outcome outcome = refusal.get().retryable() ? Outcome.RETRYABLE : Outcome.PERMANENT;
                AttemptResult refused =
                        new AttemptResult(outcome, 0, -1, refusal.get().reason());
                record(
                        ctx,
                        attempt,
                        startedAt,
                        new WebhookSender.Sent(refused, 0, null, refusal.get().reason()));
                return refused;
            }
            if (ctx.rateLimited()) {
                // Only a rate limit holds a request at the last moment: asking for any other endpoint is a wasted
                // transaction per attempt.
                sendGate.awaitTurn(deliveryId);
            }
            Instant now = Instant.now();
            WebhookSender.Sent sent = sender.send(
                    ctx.url(),
                    ctx.outboxId().toString(),
                    ctx.payload().getBytes(StandardCharsets.UTF_8),
                    WebhookSigner.signingSecrets(
                            ctx.secret(), ctx.previousSecret(), ctx.previousSecretExpiresAt(), now),
                    now,
                    requestHeaders(ctx));
            record(ctx, attempt, startedAt, sent);
            Timer.builder("relaybox.delivery.attempt")
                    .description("HTTP attempts to deliver webhooks, by endpoint and outcome")
                    .tags(
                            "endpoint",
                            ctx.endpointName(),
                            "outcome",
                            sent.result().outcome().name().toLowerCase())
                    .publishPercentileHistogram()
                    .register(metrics)
                    .record(Duration.ofMillis(sent.latencyMs()));
            LOG.info(
                    "attempt {} of delivery {} to {}: {} in {} ms",
                    attempt,
                    deliveryId,
                    RedactedUrl.of(ctx.url()),
                    sent.result().summary(),
                    sent.latencyMs());
            return sent.result();
        }
    }

    /**
     * Records the outcome first, in its own transaction, and the attempt's details (excerpt, latency) after it,
     * in another: a detail that cannot be written is logged, and never undoes a delivery the receiver has
     * already accepted (undoing it would send the webhook again).
     */
    private void record(DeliveryStore.AttemptContext ctx, int attempt, Instant startedAt, WebhookSender.Sent sent) {
        AttemptResult result = sent.result();
        Integer status = result.statusCode() == 0 ? null : result.statusCode();
        String error = StorableText.of(sent.error());
        // One handle and one attached store for both writes: attaching builds a handler per store method.
        jdbi.useHandle(h -> {
            DeliveryAttemptStore dao = h.attach(DeliveryAttemptStore.class);
            h.useTransaction(tx -> recordOutcome(tx, dao, ctx, attempt, status, error, result));
            try {
                dao.recordAttempt(
                        ctx.deliveryId(),
                        attempt,
                        startedAt,
                        status,
                        sent.latencyMs(),
                        StorableText.of(sent.responseExcerpt()),
                        error);
            } catch (RuntimeException e) {
                LOG.warn(
                        "attempt {} of delivery {} is recorded as {}, but its details could not be written",
                        attempt,
                        ctx.deliveryId(),
                        result.outcome(),
                        e);
            }
        });
    }

    private void recordOutcome(
            Handle h,
            DeliveryAttemptStore dao,
            DeliveryStore.AttemptContext ctx,
            int attempt,
            Integer status,
            String error,
            AttemptResult result) {
        dao.noteAttempt(ctx.deliveryId(), attempt, status, error);
        if (result.outcome() == Outcome.DELIVERED && dao.markDelivered(ctx.deliveryId())) {
            metrics.counter(
                            "relaybox.deliveries.finished",
                            "endpoint",
                            ctx.endpointName(),
                            "result",
                            DeliveryPhase.DELIVERED.label())
                    .increment();
        } else if (result.outcome() == Outcome.GONE) {
            h.attach(EndpointStore.class)
                    .setEnabled(
                            ctx.endpointId(),
                            false,
                            "answered 410 Gone at " + Instant.now() + " (delivery " + ctx.deliveryId() + ")");
            LOG.warn("disabled endpoint {} ({}): it answered 410 Gone", ctx.endpointName(), RedactedUrl.of(ctx.url()));
        }
    }

    /** When Temporal scheduled this attempt: the workflow's clock, which tests can skip ahead. */
    private static Instant scheduledTime() {
        return Instant.ofEpochMilli(Activity.getExecutionContext().getInfo().getCurrentAttemptScheduledTimestamp());
    }

    @Override
    public void scheduleRetry(UUID deliveryId, Instant nextAttemptAt, String lastError) {
        jdbi.useExtension(DeliveryStore.class, dao -> dao.markRetrying(deliveryId, nextAttemptAt, lastError));
    }

    @Override
    public void deadLetter(UUID deliveryId, String reason, String lastError) {
        Optional<Recorded> created = jdbi.inTransaction(h -> {
            DeliveryStore dao = h.attach(DeliveryStore.class);
            if (!dao.finishUnsuccessfully(deliveryId, DeliveryStatus.DEAD_LETTERED, lastError)) {
                return Optional.empty();
            }
            DeliveryStore.DeadLetterContext ctx = dao.deadLetterContext(deliveryId);
            return deadLetters
                    .record(
                            h,
                            DeadLetters.Source.OUTBOX,
                            deliveryId,
                            ctx.url(),
                            ctx.eventType(),
                            reason,
                            lastError,
                            ctx.attempts())
                    .map(deadLetter -> new Recorded(deadLetter, ctx.endpointName()));
        });
        created.ifPresent(recorded -> {
            metrics.counter(
                            "relaybox.deliveries.finished",
                            "endpoint",
                            recorded.endpointName(),
                            "result",
                            DeliveryPhase.DEAD_LETTERED.label())
                    .increment();
            deadLetters.announce(recorded.deadLetter());
        });
    }

    /** A dead letter this call created, with the endpoint name its metric is tagged with. */
    private record Recorded(DeadLetters.DeadLetter deadLetter, String endpointName) {}

    @Override
    public void finish(UUID outboxId) {
        jdbi.useExtension(OutboxStore.class, outbox -> outbox.markProcessed(outboxId));
    }

    /** A forwarded partner event names its partner and the partner's event id, for the handler's logs and checks. */
    /** The endpoint's static headers, and whose event a forwarded partner event is. */
    static Map<String, String> requestHeaders(DeliveryStore.AttemptContext ctx) {
        Map<String, String> headers = EndpointHeaders.read(ctx.headers());
        if (ctx.sourcePartner() == null) {
            return headers;
        }
        Map<String, String> withSource = new LinkedHashMap<>(headers);
        withSource.put(PARTNER_HEADER, ctx.sourcePartner());
        withSource.put(PARTNER_EVENT_ID_HEADER, ctx.sourceEventId());
        return withSource;
    }
}
