package dev.relaybox.service.recovery;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;

/**
 * Checks a corrected payload against its event type's schema before a replay takes it: what is wrong with it, or
 * empty when it may go: the event-type catalog's check for an outbound event.
 */
@FunctionalInterface
public interface PayloadSchemas {
    PayloadSchemas ACCEPT_ALL = (eventType, payload) -> Optional.empty();

    /** @param eventType the event type the payload will be sent or applied as; null when the payload names none */
    Optional<String> problem(String eventType, JsonNode payload);
}
