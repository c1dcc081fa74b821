package dev.relaybox.service.tenants;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.service.api.ApiException;
import dev.relaybox.service.api.Json;
import dev.relaybox.service.recovery.DeadLetterReplay;
import dev.relaybox.store.Cursor;
import dev.relaybox.store.DeadLetterFilter;
import dev.relaybox.store.DeadLetterStore;
import dev.relaybox.store.DeliveryStore;
import dev.relaybox.store.OutboxStore;
import dev.relaybox.store.Page;
import dev.relaybox.workflows.outbound.DeliveryStatus;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Jdbi;

/**
 * A tenant's message log: the deliveries to its endpoints with every attempt, resending one, and each endpoint's
 * last 24 hours by the hour. Every method takes the tenant and finds nothing of another's.
 */
public final class TenantDeliveries {
    private final Jdbi jdbi;
    private final DeadLetterReplay replay;
    private final Runnable wakeDispatcher;

    public TenantDeliveries(Jdbi jdbi, DeadLetterReplay replay, Runnable wakeDispatcher) {
        this.jdbi = jdbi;
        this.replay = replay;
        this.wakeDispatcher = wakeDispatcher;
    }

    public record Delivery(
            UUID id,
            UUID outboxId,
            String eventType,
            UUID endpointId,
            String endpoint,
            String url,
            String status,
            int attempts,
            Instant nextAttemptAt,
            Integer lastStatus,
            String lastError,
            Instant createdAt,
            Instant completedAt) {
        static Delivery of(DeliveryStore.Listed d) {
            return new Delivery(
                    d.id(),
                    d.outboxId(),
                    d.eventType(),
                    d.endpointId(),
                    d.endpoint(),
                    d.url(),
                    d.status().name(),
                    d.attempts(),
                    d.nextAttemptAt(),
                    d.lastStatus(),
                    d.lastError(),
                    d.createdAt(),
                    d.completedAt());
        }
    }

    public record Listing(List<Delivery> items, String nextCursor) {}

    public record Detail(Delivery delivery, JsonNode payload, List<DeliveryStore.Attempt> attempts) {}

    public record Bucket(Instant start, int delivered, int failed) {}

    public record Stats(Instant from, Instant to, List<Bucket> buckets) {}

    /** Newest first; {@code status} and {@code endpointId} filter when given. */
    public Listing list(String tenant, UUID endpointId, DeliveryStatus status, int limit, Cursor after) {
        DeliveryStore.Filter filter =
                new DeliveryStore.Filter(status, null, null, null, null, null, endpointId, tenant);
        Page<DeliveryStore.Listed> page =
                jdbi.withExtension(DeliveryStore.class, store -> store.list(filter, after, limit));
        return new Listing(page.items().stream().map(Delivery::of).toList(), page.nextCursor());
    }

    public Detail detail(String tenant, UUID id) {
        Delivery delivery = Delivery.of(find(tenant, id));
        return jdbi.withHandle(h -> new Detail(
                delivery,
                Json.parse(h.attach(OutboxStore.class).deliveryPayload(id).orElseThrow()),
                h.attach(DeliveryStore.class).attempts(id)));
    }

    /** Sends a delivered or dead-lettered delivery again, with the same {@code webhook-id}. */
    public void resend(String tenant, UUID id, String by) {
        DeliveryStore.Listed delivery = find(tenant, id);
        Optional<UUID> deadLetter =
                jdbi.withExtension(DeadLetterStore.class, store -> store.openOfDelivery(delivery.id()));
        if (deadLetter.isPresent()) {
            if (replay.replay(DeadLetterFilter.none(), deadLetter.get(), 1, by).replayed() == 1) {
                return;
            }
            throw ApiException.conflict("endpoint_disabled", "the endpoint is disabled: enable it to resend");
        }
        if (!jdbi.withExtension(DeliveryStore.class, store -> store.resendDelivered(id))) {
            throw ApiException.conflict(
                    "not_finished",
                    "delivery " + id + " is " + delivery.status()
                            + "; only a delivered or dead-lettered delivery can be resent");
        }
        wakeDispatcher.run();
    }

    /** The endpoint's attempts over the last 24 hours, one bucket an hour, oldest first, empty hours included. */
    public Stats stats(UUID endpointId) {
        Instant to = Instant.now().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofHours(1));
        Instant from = to.minus(Duration.ofHours(24));
        Map<Instant, DeliveryStore.HourlyAttempts> counted =
                jdbi.withExtension(DeliveryStore.class, store -> store.hourlyAttempts(endpointId, from)).stream()
                        .collect(Collectors.toMap(DeliveryStore.HourlyAttempts::start, Function.identity()));
        List<Bucket> buckets = new ArrayList<>();
        for (Instant hour = from; hour.isBefore(to); hour = hour.plus(Duration.ofHours(1))) {
            DeliveryStore.HourlyAttempts c = counted.get(hour);
            buckets.add(new Bucket(hour, c == null ? 0 : c.delivered(), c == null ? 0 : c.failed()));
        }
        return new Stats(from, to, buckets);
    }

    private DeliveryStore.Listed find(String tenant, UUID id) {
        return jdbi.withExtension(DeliveryStore.class, store -> store.find(id))
                .filter(d -> tenant == null || tenant.equals(d.tenant()))
                .orElseThrow(() -> ApiException.notFound("delivery_not_found", "no delivery with id " + id));
    }
}
