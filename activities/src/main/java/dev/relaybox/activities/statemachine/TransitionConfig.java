package dev.relaybox.activities.statemachine;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One event type's transition as written in YAML.
 *
 * @param from the states the event applies in; {@value StateMachine#NONE} means the event creates the entity
 * @param to   the state the entity is in afterwards
 * @param emit the outbound event type written to the outbox when the transition applies, or null for none
 */
public record TransitionConfig(List<String> from, String to, String emit) {

    public TransitionConfig {
        from = from == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(from));
    }
}
