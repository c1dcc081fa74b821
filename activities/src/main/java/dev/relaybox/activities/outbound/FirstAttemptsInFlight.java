package dev.relaybox.activities.outbound;

import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The requests of first attempts in flight in this worker, by delivery and attempt number: while one holds its
 * workflow task, and after it was handed over, until the regular activity the workflow schedules on this worker's own
 * queue takes it. Any later call for the same attempt (that activity, or a run started afresh) waits for its answer
 * rather than sending the webhook again. One handed over that no workflow comes for (it was terminated meanwhile) is
 * forgotten a while after its answer.
 */
final class FirstAttemptsInFlight<T> {
    private static final long FORGET_AFTER_MINUTES = 10;
    private static final ScheduledExecutorService FORGETTING = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "relaybox-first-attempts-in-flight");
        thread.setDaemon(true);
        return thread;
    });

    private record Key(UUID deliveryId, int attempt) {}

    private final Map<Key, CompletableFuture<T>> inFlight = new ConcurrentHashMap<>();

    /** The request in flight for this attempt, or {@code fresh}, now known as in flight, when there is none. */
    CompletableFuture<T> inFlightOr(UUID deliveryId, int attempt, CompletableFuture<T> fresh) {
        CompletableFuture<T> earlier = inFlight.putIfAbsent(new Key(deliveryId, attempt), fresh);
        return earlier == null ? fresh : earlier;
    }

    /** Its answer came while it held the workflow task, which takes it. */
    void answered(UUID deliveryId, int attempt, CompletableFuture<T> answer) {
        inFlight.remove(new Key(deliveryId, attempt), answer);
    }

    void handedOver(UUID deliveryId, int attempt, CompletableFuture<T> answer) {
        Key key = new Key(deliveryId, attempt);
        answer.whenComplete((made, failure) ->
                FORGETTING.schedule(() -> inFlight.remove(key, answer), FORGET_AFTER_MINUTES, TimeUnit.MINUTES));
    }

    Optional<CompletableFuture<T>> take(UUID deliveryId, int attempt) {
        return Optional.ofNullable(inFlight.remove(new Key(deliveryId, attempt)));
    }
}
