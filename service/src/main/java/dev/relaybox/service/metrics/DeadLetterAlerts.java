package dev.relaybox.service.metrics;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.relaybox.activities.deadletter.DeadLetters.DeadLetter;
import dev.relaybox.activities.deadletter.DeadLetters.DeadLetterListener;
import dev.relaybox.producer.Outbox;
import dev.relaybox.producer.OutboxEvent;
import io.micrometer.core.instrument.MeterRegistry;
import org.jdbi.v3.core.Handle;

/**
 * What happens when something is dead-lettered, beyond the ERROR log line: a metric, and when alerting is
 * configured, an {@code relaybox.dead_letter.created} event through Relaybox's own outbox, committed with
 * the dead letter. A dead-lettered alert raises no alert of its own, so a failing alert endpoint cannot
 * feed on itself.
 */
public final class DeadLetterAlerts implements DeadLetterListener {
    public static final String ALERT_EVENT = "relaybox.dead_letter.created";

    private final MeterRegistry metrics;
    private final ObjectMapper json;
    private final boolean sendAlertEvents;

    public DeadLetterAlerts(MeterRegistry metrics, ObjectMapper json, boolean sendAlertEvents) {
        this.metrics = metrics;
        this.json = json;
        this.sendAlertEvents = sendAlertEvents;
    }

    @Override
    public void recorded(Handle handle, DeadLetter deadLetter) {
        if (!sendAlertEvents || ALERT_EVENT.equals(deadLetter.eventType())) {
            return;
        }
        ObjectNode payload = json.createObjectNode()
                .put("deadLetterId", deadLetter.id().toString())
                .put("source", deadLetter.source().name())
                .put("reference", deadLetter.reference().toString())
                .put("peer", deadLetter.peer())
                .put("eventType", deadLetter.eventType())
                .put("reason", deadLetter.reason())
                .put("lastError", deadLetter.lastError())
                .put("attempts", deadLetter.attempts());
        Outbox.enqueueRelayboxEvent(
                handle,
                new OutboxEvent(ALERT_EVENT, "dead_letter", deadLetter.id().toString(), payload.toString()));
    }

    @Override
    public void created(DeadLetter deadLetter) {
        // Not "...created": Prometheus keeps a counter's _created suffix for its creation time and drops it.
        metrics.counter(
                        "relaybox.dead_letters",
                        "source",
                        deadLetter.source().name().toLowerCase())
                .increment();
    }
}
