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
 * First attempts still waiting on their receiver when their workflow task went on, by delivery and attempt number:
 * the regular activity the workflow schedules on this worker's own queue takes one and waits for its answer. One its
 * workflow never came for (the workflow terminated meanwhile) is forgotten a while after it ended.
 */
final class HandedOverAttempts<T> {
    private static final long FORGET_AFTER_MINUTES = 10;
    private static final ScheduledExecutorService FORGETTING = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "relaybox-handed-over-attempts");
        thread.setDaemon(true);
        return thread;
    });

    private record Key(UUID deliveryId, int attempt) {}

    private final Map<Key, CompletableFuture<T>> inFlight = new ConcurrentHashMap<>();

    void put(UUID deliveryId, int attempt, CompletableFuture<T> answer) {
        Key key = new Key(deliveryId, attempt);
        inFlight.put(key, answer);
        answer.whenComplete((made, failure) ->
                FORGETTING.schedule(() -> inFlight.remove(key, answer), FORGET_AFTER_MINUTES, TimeUnit.MINUTES));
    }

    Optional<CompletableFuture<T>> take(UUID deliveryId, int attempt) {
        return Optional.ofNullable(inFlight.remove(new Key(deliveryId, attempt)));
    }
}
