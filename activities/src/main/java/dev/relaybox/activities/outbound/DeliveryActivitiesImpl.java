package dev.relaybox.activities.outbound;

import dev.relaybox.activities.RedactedUrl;
import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.store.DeadLetterSource;
import dev.relaybox.store.DeliveryAttemptStore;
import dev.relaybox.store.DeliveryStore;
import dev.relaybox.store.EndpointStore;
import dev.relaybox.workflows.outbound.AttemptResult;
import dev.relaybox.workflows.outbound.AttemptResult.Outcome;
import dev.relaybox.workflows.outbound.CircuitState;
import dev.relaybox.workflows.outbound.DeliveryActivities;
import dev.relaybox.workflows.outbound.DeliveryPhase;
import dev.relaybox.workflows.outbound.DeliveryPlan;
import dev.relaybox.workflows.outbound.DeliveryStatus;
import dev.relaybox.workflows.outbound.FirstAttempt;
import dev.relaybox.workflows.outbound.SettledAttempt;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.opentelemetry.api.trace.Span;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.failure.ApplicationFailure;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.stream.Collectors;
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
    /** On a webhook whose payload an operator corrected before replaying it: not the body first sent. */
    public static final String EDITED_HEADER = "relaybox-edited";

    private static final String DETAILS = "attempt_details";
    /** Beyond a request's deadline, for an attempt's database writes. */
    private static final Duration RECORDING_LIMIT = Duration.ofSeconds(30);

    private final Jdbi jdbi;
    private final DeliverySettings settings;
    private final WebhookSender sender;
    private final WebhookSender tenantSender;
    private final Brokers brokers;
    private final Brokers tenantBrokers;
    private final EndpointUrlPolicy urlPolicy;
    private final DeadLetters deadLetters;
    private final MeterRegistry metrics;
    private final EndpointControlActivitiesImpl controls;
    private final DeliveryPlanner planner;
    private final FirstAttemptsInFlight<Made> inFlight = new FirstAttemptsInFlight<>();
    /** First attempts' requests, which may outlast the local activity that started them. */
    private final ExecutorService requests = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "relaybox-first-attempt");
        thread.setDaemon(true);
        return thread;
    });

    private volatile String ownTaskQueue;

    /** {@code controls}: the endpoint controls the same worker registers, which each attempt reports to. */
    public DeliveryActivitiesImpl(
            Jdbi jdbi,
            DeliverySettings settings,
            DeadLetters deadLetters,
            MeterRegistry metrics,
            HostResolver resolver,
            EndpointControlActivitiesImpl controls) {
        this.controls = controls;
        this.jdbi = jdbi;
        this.metrics = metrics;
        this.settings = settings;
        this.urlPolicy = new EndpointUrlPolicy(settings.addresses(), resolver);
        this.sender = new WebhookSender(settings, urlPolicy);
        this.tenantSender = new WebhookSender(settings, urlPolicy.forTenants());
        this.brokers = new Brokers(settings, urlPolicy);
        this.tenantBrokers = new Brokers(settings, urlPolicy.forTenants());
        this.deadLetters = deadLetters;
        this.planner = new DeliveryPlanner(settings.schedule());
    }

    @Override
    public DeliveryPlan plan(UUID outboxId) {
        return jdbi.inTransaction(h -> planner.plan(h, outboxId));
    }

    @Override
    public AttemptResult attempt(UUID deliveryId, int attempt) {
        ActivityExecutionContext activity = Activity.getExecutionContext();
        try (Heartbeat alive = Heartbeat.whileRunning(activity)) {
            return attempt(deliveryId, attempt, false, scheduledTime(activity)).result();
        }
    }

    /**
     * Made as a local activity (a first attempt), the attempt holds its workflow task for at most
     * {@code firstAttemptHold}; a slower receiver's request goes on meanwhile, and the workflow asks for its answer by
     * calling this again on this worker's own queue. Either way, it waits for such an answer when one is in flight
     * here, and makes the attempt otherwise.
     */
    @Override
    public SettledAttempt send(UUID deliveryId, int attempt) {
        ActivityExecutionContext activity = Activity.getExecutionContext();
        Instant scheduledAt = scheduledTime(activity);
        Made made;
        if (activity.getInfo().isLocal() && ownTaskQueue != null) {
            CompletableFuture<Made> making =
                    making(deliveryId, attempt, () -> attempt(deliveryId, attempt, true, scheduledAt));
            Optional<Made> answered = answeredBy(deliveryId, attempt, making, holdEndsAt());
            if (answered.isEmpty()) {
                return handedOver();
            }
            made = answered.get();
        } else {
            // From the first statement: a worker waiting on its database or a receiver is alive, and must not be
            // taken for dead (the attempt would be made again beside this one, and both would send).
            try (Heartbeat alive = Heartbeat.whileRunning(activity)) {
                made = inFlight.take(deliveryId, attempt)
                        .map(DeliveryActivitiesImpl::answer)
                        .orElseGet(() -> attempt(deliveryId, attempt, true, scheduledAt));
            }
        }
        return settled(deliveryId, made);
    }

    @Override
    public List<SettledAttempt> sendFirst(List<FirstAttempt> attempts) {
        Instant scheduledAt = scheduledTime(Activity.getExecutionContext());
        long holdEndsAt = holdEndsAt();
        // Each known as in flight before anything is read, as a lone first attempt is: whatever makes it again (its
        // delivery's own send, once this activity timed out on a frozen database) waits for this request.
        CompletableFuture<Map<UUID, DeliveryStore.AttemptContext>> contexts = new CompletableFuture<>();
        // A lone attempt finishes the row as it records its delivery; several, each beside the others, would each
        // try and see the others unfinished: the row is finished once, below, when all of them delivered.
        boolean lone = attempts.size() == 1;
        List<CompletableFuture<Made>> making = attempts.stream()
                .map(first -> making(
                        first.deliveryId(),
                        first.attempt(),
                        () -> attempt(contextOf(contexts, first.deliveryId()), first.attempt(), lone, scheduledAt)))
                .toList();
        List<UUID> ids = attempts.stream().map(FirstAttempt::deliveryId).toList();
        try {
            contexts.complete(jdbi.withExtension(DeliveryAttemptStore.class, dao -> dao.attemptContexts(ids)).stream()
                    .collect(Collectors.toMap(DeliveryStore.AttemptContext::deliveryId, ctx -> ctx)));
        } catch (RuntimeException e) {
            // Nothing was sent: each delivery makes its own, afresh.
            contexts.completeExceptionally(e);
            for (int i = 0; i < attempts.size(); i++) {
                inFlight.answered(attempts.get(i).deliveryId(), attempts.get(i).attempt(), making.get(i));
            }
            throw e;
        }
        List<SettledAttempt> answers = new ArrayList<>();
        for (int i = 0; i < attempts.size(); i++) {
            FirstAttempt first = attempts.get(i);
            try {
                answers.add(answeredBy(first.deliveryId(), first.attempt(), making.get(i), holdEndsAt)
                        .map(made -> settled(first.deliveryId(), made))
                        .orElseGet(this::handedOver));
            } catch (RuntimeException e) {
                // Its own send finds the request still in flight here, or makes it; the others' answers stand.
                LOG.warn("first attempt {} of delivery {} could not be made", first.attempt(), first.deliveryId(), e);
                answers.add(null);
            }
        }
        boolean allDelivered = answers.stream()
                .allMatch(answer -> answer != null
                        && answer.handedOver() == null
                        && answer.result().outcome() == Outcome.DELIVERED);
        if (lone || !allDelivered) {
            return answers;
        }
        UUID outboxId = contexts.join().values().iterator().next().outboxId();
        boolean finished = jdbi.withExtension(DeliveryAttemptStore.class, dao -> dao.markProcessed(outboxId));
        return answers.stream()
                .map(answer -> new SettledAttempt(answer.result(), answer.circuit(), finished))
                .toList();
    }

    private static DeliveryStore.AttemptContext contextOf(
            CompletableFuture<Map<UUID, DeliveryStore.AttemptContext>> contexts, UUID deliveryId) {
        DeliveryStore.AttemptContext ctx;
        try {
            ctx = contexts.join().get(deliveryId);
        } catch (CompletionException e) {
            throw rethrown(e.getCause());
        }
        if (ctx == null) {
            throw ApplicationFailure.newNonRetryableFailure(
                    "delivery " + deliveryId + " does not exist", "DeliveryMissing");
        }
        return ctx;
    }

    private SettledAttempt settled(UUID deliveryId, Made made) {
        CircuitState circuit = controls.settle(deliveryId, made.result(), made.settledAt());
        return new SettledAttempt(made.result(), circuit, made.outboxFinished());
    }

    private SettledAttempt handedOver() {
        return SettledAttempt.handedOver(new SettledAttempt.HandOver(
                ownTaskQueue, settings.requestTimeout().plus(RECORDING_LIMIT)));
    }

    /**
     * When a first attempt made as a local activity stops holding its workflow task ({@code firstAttemptHold} from
     * now, on {@link System#nanoTime}): until this worker has a queue of its own to hand a request over to, never.
     */
    private long holdEndsAt() {
        return ownTaskQueue == null
                ? Long.MAX_VALUE
                : System.nanoTime() + settings.firstAttemptHold().toNanos();
    }

    /**
     * A first attempt, made on a thread of its own so that its request can outlast the local activity: known as in
     * flight before its request leaves, so that nothing can send it beside this one. A run started afresh (its engine
     * lost the run that made this attempt) gets the request still in flight here rather than sending the webhook
     * again.
     */
    private CompletableFuture<Made> making(UUID deliveryId, int attempt, Supplier<Made> make) {
        CompletableFuture<Made> fresh = new CompletableFuture<>();
        CompletableFuture<Made> making = inFlight.inFlightOr(deliveryId, attempt, fresh);
        if (making == fresh) {
            requests.execute(() -> {
                try {
                    making.complete(make.get());
                } catch (RuntimeException failure) {
                    making.completeExceptionally(failure);
                }
            });
        }
        return making;
    }

    /** Its answer when it comes by {@code endsAt} (on {@link System#nanoTime}), else empty: handed over, in flight. */
    private Optional<Made> answeredBy(UUID deliveryId, int attempt, CompletableFuture<Made> making, long endsAt) {
        try {
            Made made = endsAt == Long.MAX_VALUE
                    ? making.get()
                    : making.get(Math.max(0, endsAt - System.nanoTime()), TimeUnit.NANOSECONDS);
            inFlight.answered(deliveryId, attempt, making);
            return Optional.of(made);
        } catch (TimeoutException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            inFlight.handedOver(deliveryId, attempt, making);
            return Optional.empty();
        } catch (ExecutionException e) {
            inFlight.answered(deliveryId, attempt, making);
            throw rethrown(e.getCause());
        }
    }

    /**
     * Where this worker takes the first attempts it handed over, a queue only it polls; until it is set, a first
     * attempt holds its workflow task until the receiver answers.
     */
    public void takeHandedOverAttemptsOn(String taskQueue) {
        this.ownTaskQueue = taskQueue;
    }

    private static Made answer(CompletableFuture<Made> making) {
        try {
            return making.join();
        } catch (CompletionException e) {
            throw rethrown(e.getCause());
        }
    }

    private static RuntimeException rethrown(Throwable failure) {
        return failure instanceof RuntimeException runtime ? runtime : new IllegalStateException(failure);
    }

    /**
     * An attempt as made: {@code settledAt}, when it ended on the workflow's clock (its scheduled time, which tests
     * skip ahead, and the attempt's latency); {@code outboxFinished}, it finished the row.
     */
    private record Made(AttemptResult result, Instant settledAt, boolean outboxFinished) {}

    /**
     * {@code finishesOutbox}: delivering the row's last delivery still to be attempted finishes the row;
     * {@code scheduledAt}: when Temporal scheduled the attempt, on the workflow's clock.
     */
    private Made attempt(UUID deliveryId, int attempt, boolean finishesOutbox, Instant scheduledAt) {
        DeliveryStore.AttemptContext ctx = jdbi.withExtension(
                        DeliveryAttemptStore.class, dao -> dao.attemptContext(deliveryId))
                .orElseThrow(() -> ApplicationFailure.newNonRetryableFailure(
                        "delivery " + deliveryId + " does not exist", "DeliveryMissing"));
        return attempt(ctx, attempt, finishesOutbox, scheduledAt);
    }

    private Made attempt(DeliveryStore.AttemptContext ctx, int attempt, boolean finishesOutbox, Instant scheduledAt) {
        UUID deliveryId = ctx.deliveryId();
        try (MDC.MDCCloseable outbox =
                        MDC.putCloseable("outboxId", ctx.outboxId().toString());
                MDC.MDCCloseable delivery = MDC.putCloseable("deliveryId", deliveryId.toString())) {
            if (ctx.status() == DeliveryStatus.DELIVERED) {
                // A re-run after a crash that happened once the receiver had it: do not send it again.
                return new Made(new AttemptResult(Outcome.DELIVERED, 0, -1, "already delivered"), scheduledAt, false);
            }
            Instant startedAt = scheduledAt;
            if (!ctx.enabled()
                    && jdbi.withExtension(
                            DeliveryStore.class, dao -> dao.pauseWhileDisabled(deliveryId, ctx.endpointId()))) {
                String paused = "endpoint " + ctx.endpointName() + " is disabled (" + ctx.disabledReason()
                        + "); paused until it is enabled";
                LOG.info("delivery {} {}", deliveryId, paused);
                return new Made(new AttemptResult(Outcome.PAUSED, 0, -1, paused), startedAt, false);
            }
            Optional<Destination> destination = Destination.fromJson(ctx.destination());
            // Only what needs no lookup: the sender resolves the host once, checks it and connects there.
            Optional<EndpointUrlPolicy.Refusal> refusal = urlPolicy.syntaxRefusal(
                    ctx.url(), destination.map(Destination::schemes).orElse(EndpointUrlPolicy.HTTP));
            if (refusal.isPresent()) {
                // A name that does not resolve now may resolve in a minute: the schedule decides, not one lookup.
                Outcome outcome = refusal.get().retryable() ? Outcome.RETRYABLE : Outcome.PERMANENT;
                AttemptResult refused =
                        new AttemptResult(outcome, 0, -1, refusal.get().reason());
                record(
                        ctx,
                        attempt,
                        startedAt,
                        new WebhookSender.Sent(refused, 0, null, refusal.get().reason()),
                        false);
                return new Made(refused, startedAt, false);
            }
            if (ctx.rateLimited()) {
                // Only a rate limit holds a request at the last moment: asking for any other endpoint is a wasted
                // transaction per attempt.
                controls.awaitTurn(deliveryId);
            }
            Instant now = Instant.now();
            Span span = DeliverySpans.attempt(ctx, attempt);
            WebhookSender.Sent sent;
            try {
                byte[] body = ctx.payload().getBytes(StandardCharsets.UTF_8);
                List<String> secrets = WebhookSigner.signingSecrets(
                        ctx.secret(), ctx.previousSecret(), ctx.previousSecretExpiresAt(), now);
                Map<String, String> headers = DeliverySpans.headers(requestHeaders(ctx), span);
                String webhookId = ctx.outboxId().toString();
                sent = destination.isPresent()
                        ? (ctx.tenant() == null ? brokers : tenantBrokers)
                                .publish(
                                        ctx.url(),
                                        destination.get(),
                                        BrokerMessage.of(
                                                webhookId,
                                                ctx.aggregateId(),
                                                ctx.eventType(),
                                                ctx.tenant(),
                                                body,
                                                secrets,
                                                now,
                                                headers))
                        : (ctx.tenant() == null ? sender : tenantSender)
                                .send(ctx.url(), webhookId, body, secrets, now, headers);
            } catch (RuntimeException e) {
                span.recordException(e);
                span.end();
                throw e;
            }
            DeliverySpans.answered(span, sent.result());
            boolean outboxFinished = record(ctx, attempt, startedAt, sent, finishesOutbox);
            Timer.builder("relaybox.delivery.attempt")
                    .description(
                            "attempts to deliver webhooks (HTTP requests and broker publishes), by endpoint and outcome")
                    .tags(EndpointTags.of(ctx.endpointId(), ctx.tenant())
                            .and("outcome", sent.result().outcome().name().toLowerCase()))
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
            return new Made(sent.result(), startedAt.plusMillis(sent.latencyMs()), outboxFinished);
        }
    }

    /**
     * Records the outcome and then the attempt's details (excerpt, latency) in one transaction, the details behind a
     * savepoint: a detail that cannot be written is rolled back alone and logged, and never undoes a delivery the
     * receiver has already accepted (undoing it would send the webhook again). True when it finished the row.
     */
    private boolean record(
            DeliveryStore.AttemptContext ctx,
            int attempt,
            Instant startedAt,
            WebhookSender.Sent sent,
            boolean finishesOutbox) {
        AttemptResult result = sent.result();
        Integer status = result.statusCode() == 0 ? null : result.statusCode();
        String error = StorableText.of(sent.error());
        return jdbi.inTransaction(h -> {
            DeliveryAttemptStore dao = h.attach(DeliveryAttemptStore.class);
            boolean outboxFinished = recordOutcome(h, dao, ctx, attempt, status, error, result, finishesOutbox);
            h.savepoint(DETAILS);
            try {
                dao.recordAttempt(
                        ctx.deliveryId(),
                        attempt,
                        startedAt,
                        status,
                        sent.latencyMs(),
                        StorableText.of(sent.responseExcerpt()),
                        error,
                        // Delivered with no status code: a broker confirmed the publish.
                        status == null && result.outcome() == Outcome.DELIVERED);
                h.releaseSavepoint(DETAILS);
            } catch (RuntimeException e) {
                h.rollbackToSavepoint(DETAILS);
                LOG.warn(
                        "attempt {} of delivery {} is recorded as {}, but its details could not be written",
                        attempt,
                        ctx.deliveryId(),
                        result.outcome(),
                        e);
            }
            return outboxFinished;
        });
    }

    /** True when it finished the row. */
    private boolean recordOutcome(
            Handle h,
            DeliveryAttemptStore dao,
            DeliveryStore.AttemptContext ctx,
            int attempt,
            Integer status,
            String error,
            AttemptResult result,
            boolean finishesOutbox) {
        dao.noteAttempt(ctx.deliveryId(), attempt, status, error);
        if (result.outcome() == Outcome.DELIVERED && dao.markDelivered(ctx.deliveryId())) {
            metrics.counter(
                            "relaybox.deliveries.finished",
                            EndpointTags.of(ctx.endpointId(), ctx.tenant())
                                    .and("result", DeliveryPhase.DELIVERED.label()))
                    .increment();
            // How late the webhook was: from the producer's commit to the receiver's 2xx, retries and replays included.
            Timer.builder("relaybox.delivery.latency")
                    .description("from an event's enqueue to its endpoint's 2xx, by endpoint")
                    .tags(EndpointTags.of(ctx.endpointId(), ctx.tenant()))
                    .publishPercentileHistogram()
                    .maximumExpectedValue(Duration.ofHours(1))
                    .register(metrics)
                    .record(Duration.between(ctx.enqueuedAt(), Instant.now()));
            return finishesOutbox && dao.markProcessed(ctx.outboxId());
        } else if (result.outcome() == Outcome.GONE) {
            h.attach(EndpointStore.class)
                    .setEnabled(
                            ctx.endpointId(),
                            false,
                            "answered 410 Gone at " + Instant.now() + " (delivery " + ctx.deliveryId() + ")");
            LOG.warn("disabled endpoint {} ({}): it answered 410 Gone", ctx.endpointName(), RedactedUrl.of(ctx.url()));
        }
        return false;
    }

    /** When Temporal scheduled this attempt: the workflow's clock, which tests can skip ahead. */
    private static Instant scheduledTime(ActivityExecutionContext activity) {
        return Instant.ofEpochMilli(activity.getInfo().getCurrentAttemptScheduledTimestamp());
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
                            DeadLetterSource.OUTBOX,
                            deliveryId,
                            ctx.url(),
                            ctx.eventType(),
                            reason,
                            lastError,
                            ctx.attempts())
                    .map(deadLetter -> new Recorded(deadLetter, ctx));
        });
        created.ifPresent(recorded -> {
            DeliveryStore.DeadLetterContext ctx = recorded.delivery();
            metrics.counter(
                            "relaybox.deliveries.finished",
                            EndpointTags.of(ctx.endpointId(), ctx.tenant())
                                    .and("result", DeliveryPhase.DEAD_LETTERED.label()))
                    .increment();
            DeliverySpans.deadLettered(ctx, deliveryId, reason);
            deadLetters.announce(recorded.deadLetter());
        });
    }

    /** A dead letter this call created, and what it says of its delivery. */
    private record Recorded(DeadLetters.DeadLetter deadLetter, DeliveryStore.DeadLetterContext delivery) {}

    @Override
    public void finish(UUID outboxId) {
        jdbi.useExtension(DeliveryAttemptStore.class, dao -> dao.markProcessed(outboxId));
    }

    /** The endpoint's static headers, and whose event a forwarded partner event is. */
    static Map<String, String> requestHeaders(DeliveryStore.AttemptContext ctx) {
        Map<String, String> headers = EndpointHeaders.read(ctx.headers());
        if (ctx.sourcePartner() == null && !ctx.edited()) {
            return headers;
        }
        Map<String, String> withOwn = new LinkedHashMap<>(headers);
        if (ctx.sourcePartner() != null) {
            withOwn.put(PARTNER_HEADER, ctx.sourcePartner());
            withOwn.put(PARTNER_EVENT_ID_HEADER, ctx.sourceEventId());
        }
        if (ctx.edited()) {
            withOwn.put(EDITED_HEADER, "true");
        }
        return withOwn;
    }
}
