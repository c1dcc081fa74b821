package dev.relaybox.activities.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.producer.JdbcOutbox;
import dev.relaybox.store.EventTypeStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an event meets when it is published, by {@code POST /outbox} before it is stored and by the dispatcher when it
 * reads a row stored any other way (the producer library, plain SQL): a type in the catalog validates against its
 * latest version's schema; a type not in it passes only while {@code eventTypes.allowUnknown} holds. Relaybox's own
 * {@code relaybox.*} events are not the catalog's. A deprecated type still publishes, with a warning logged at most
 * once an hour per type, so a busy producer does not flood the log.
 */
public final class PublishCheck {
    private static final Logger LOG = LoggerFactory.getLogger(PublishCheck.class);
    static final Duration WARN_EVERY = Duration.ofHours(1);

    public enum Outcome {
        /** Not in the catalog, and unknown types are allowed. */
        UNCATALOGUED,
        VALID,
        /** Valid, and its type is deprecated. */
        DEPRECATED,
        /** Not in the catalog, and unknown types are refused. */
        UNKNOWN_TYPE,
        INVALID_PAYLOAD
    }

    /** The outcome; for a refusal, the reason in words (with the failing JSON paths). */
    public record Verdict(Outcome outcome, String reason) {
        public boolean refused() {
            return outcome == Outcome.UNKNOWN_TYPE || outcome == Outcome.INVALID_PAYLOAD;
        }
    }

    private final Jdbi jdbi;
    private final EventSchemas schemas;
    private final boolean allowUnknown;
    private final Clock clock;
    private final Map<String, Instant> warnedAt = new ConcurrentHashMap<>();

    public PublishCheck(Jdbi jdbi, EventSchemas schemas, boolean allowUnknown, Clock clock) {
        this.jdbi = jdbi;
        this.schemas = schemas;
        this.allowUnknown = allowUnknown;
        this.clock = clock;
    }

    /** For a payload at hand, on a handle of its own. */
    public Verdict check(String eventType, JsonNode payload) {
        return jdbi.withHandle(handle -> batch(handle).check(eventType, () -> payload));
    }

    /** Checks on the caller's handle, each type looked up once: for the rows of one dispatcher batch. */
    public Batch batch(Handle handle) {
        return new Batch(handle.attach(EventTypeStore.class));
    }

    /** The checks of one transaction: a type's latest version is read once, then reused. */
    public final class Batch {
        private final EventTypeStore store;
        private final Map<String, Optional<EventTypeStore.Latest>> latest = new HashMap<>();

        private Batch(EventTypeStore store) {
            this.store = store;
        }

        /** {@code payload} is read only when the type has a schema. */
        public Verdict check(String eventType, Supplier<JsonNode> payload) {
            if (JdbcOutbox.isReserved(eventType)) {
                return new Verdict(Outcome.UNCATALOGUED, null);
            }
            return verdict(store, eventType, latest.computeIfAbsent(eventType, store::latest), payload);
        }
    }

    private Verdict verdict(
            EventTypeStore store, String eventType, Optional<EventTypeStore.Latest> found, Supplier<JsonNode> payload) {
        if (found.isEmpty()) {
            return allowUnknown
                    ? new Verdict(Outcome.UNCATALOGUED, null)
                    : new Verdict(
                            Outcome.UNKNOWN_TYPE,
                            "event type " + eventType + " is not in the catalog, and eventTypes.allowUnknown is false");
        }
        EventTypeStore.Latest latest = found.get();
        List<Violation> wrong = schemas.violations(
                eventType,
                latest.version(),
                () -> store.schema(eventType, latest.version()).orElseThrow(),
                payload.get());
        if (!wrong.isEmpty()) {
            return new Verdict(
                    Outcome.INVALID_PAYLOAD,
                    "payload does not match event type " + eventType + " version " + latest.version() + ": "
                            + Violation.describe(wrong));
        }
        if (!latest.deprecated()) {
            return new Verdict(Outcome.VALID, null);
        }
        warnDeprecated(eventType);
        return new Verdict(Outcome.DEPRECATED, null);
    }

    private void warnDeprecated(String eventType) {
        Instant now = clock.instant();
        Instant last = warnedAt.get(eventType);
        if (last != null && last.plus(WARN_EVERY).isAfter(now)) {
            return;
        }
        warnedAt.put(eventType, now);
        LOG.warn(
                "published an event of deprecated type {}: it is delivered as usual; move its producers to the "
                        + "type that replaces it (this warning repeats at most every {} per type)",
                eventType,
                WARN_EVERY);
    }
}
