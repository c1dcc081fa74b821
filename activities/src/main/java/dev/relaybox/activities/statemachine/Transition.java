package dev.relaybox.activities.statemachine;

import java.util.Set;

/** A validated transition; {@code emit} is null when the transition emits nothing. */
record Transition(String eventType, Set<String> from, String to, String emit) {

    Transition {
        from = Set.copyOf(from);
    }
}
