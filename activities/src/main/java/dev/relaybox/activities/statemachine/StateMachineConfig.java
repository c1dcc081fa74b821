package dev.relaybox.activities.statemachine;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One aggregate type's state machine as written in YAML under {@code stateMachines.<type>}.
 *
 * <p>Holds the configuration as written; {@link StateMachine#from} decides whether it makes sense.
 *
 * @param states      the real states; {@value StateMachine#NONE} is implied and must not be listed
 * @param initial     the state a new entity takes when its creating event applies
 * @param transitions event type to transition, in declaration order
 */
public record StateMachineConfig(List<String> states, String initial, Map<String, TransitionConfig> transitions) {

    public StateMachineConfig {
        // Copies tolerate nulls so that validation, not Jackson, reports a broken entry by name.
        states = states == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(states));
        // Declaration order matters: it breaks ties between equally short paths when deferring.
        transitions = transitions == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(transitions));
    }
}
