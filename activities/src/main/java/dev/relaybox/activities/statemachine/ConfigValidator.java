package dev.relaybox.activities.statemachine;

import static dev.relaybox.activities.statemachine.StateMachine.NONE;

import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns a {@link StateMachineConfig} into transitions, or fails with a message naming the machine, the entry
 * and the problem, so a broken configuration stops the service at startup rather than dead-lettering events.
 */
final class ConfigValidator {
    private final String aggregateType;

    private ConfigValidator(String aggregateType) {
        this.aggregateType = aggregateType;
    }

    static Map<String, Transition> transitions(String aggregateType, StateMachineConfig config) {
        if (aggregateType == null || aggregateType.isBlank()) {
            throw new IllegalArgumentException("state machine name must not be blank");
        }
        return new ConfigValidator(aggregateType).check(config);
    }

    /** A state no transition leads to could never be held, so it is almost certainly a typo. */
    static void requireReachable(String aggregateType, List<String> states, TransitionGraph graph) {
        Set<String> reachable = graph.reachableFrom(NONE);
        for (String state : states) {
            if (!reachable.contains(state)) {
                throw new ConfigValidator(aggregateType)
                        .fail("state '" + state + "' cannot be reached from '" + NONE + "' by any transition");
            }
        }
    }

    private Map<String, Transition> check(StateMachineConfig config) {
        if (config == null) {
            throw fail("has no configuration");
        }
        Set<String> states = checkStates(config.states());
        checkInitial(config.initial(), states);
        if (config.transitions().isEmpty()) {
            throw fail("declares no transitions");
        }
        Map<String, Transition> transitions = new LinkedHashMap<>();
        config.transitions()
                .forEach((eventType, transition) ->
                        transitions.put(eventType, checkTransition(eventType, transition, states, config.initial())));
        if (transitions.values().stream().noneMatch(t -> t.from().contains(NONE))) {
            throw fail("no transition comes from '" + NONE + "', so no " + aggregateType + " could ever be created");
        }
        return Collections.unmodifiableMap(transitions);
    }

    private Set<String> checkStates(List<String> declared) {
        if (declared.isEmpty()) {
            throw fail("declares no states");
        }
        Set<String> states = new HashSet<>();
        for (String state : declared) {
            if (state == null || state.isBlank()) {
                throw fail("declares a blank state");
            }
            if (state.equals(NONE)) {
                throw fail("declares '" + NONE + "' as a state, but '" + NONE
                        + "' is reserved for an entity that does not exist yet");
            }
            if (!states.add(state)) {
                throw fail("declares state '" + state + "' twice");
            }
        }
        return states;
    }

    private void checkInitial(String initial, Set<String> states) {
        if (initial == null || initial.isBlank()) {
            throw fail("has no initial state");
        }
        if (!states.contains(initial)) {
            throw fail("initial state '" + initial + "' is not one of its states");
        }
    }

    private Transition checkTransition(
            String eventType, TransitionConfig transition, Set<String> states, String initial) {
        if (eventType == null || eventType.isBlank()) {
            throw fail("declares a transition with a blank event type");
        }
        String name = "transition '" + eventType + "' ";
        if (transition == null) {
            throw fail(name + "is empty");
        }
        if (transition.from().isEmpty()) {
            throw fail(name + "has no from-states");
        }
        Set<String> from = new HashSet<>();
        for (String state : transition.from()) {
            if (state == null || state.isBlank()) {
                throw fail(name + "has a blank from-state");
            }
            if (!state.equals(NONE) && !states.contains(state)) {
                throw fail(name + "comes from unknown state '" + state + "'");
            }
            if (!from.add(state)) {
                throw fail(name + "lists from-state '" + state + "' twice");
            }
        }
        String to = transition.to();
        if (to == null || to.isBlank()) {
            throw fail(name + "has no to-state");
        }
        if (to.equals(NONE)) {
            throw fail(name + "goes to '" + NONE
                    + "', but an entity cannot stop existing; declare a state such as 'deleted'");
        }
        if (!states.contains(to)) {
            throw fail(name + "goes to unknown state '" + to + "'");
        }
        // 'initial' is defined as the state a new entity takes, so a creating event must land there.
        if (from.contains(NONE) && !to.equals(initial)) {
            throw fail(name + "creates the entity in '" + to + "', but the initial state is '" + initial + "'");
        }
        String emit = transition.emit();
        if (emit != null && emit.isBlank()) {
            throw fail(name + "has a blank emit; leave it out to emit nothing");
        }
        return new Transition(eventType, from, to, emit);
    }

    private IllegalArgumentException fail(String problem) {
        return new IllegalArgumentException("state machine '" + aggregateType + "': " + problem);
    }
}
