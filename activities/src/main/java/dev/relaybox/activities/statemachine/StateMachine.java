package dev.relaybox.activities.statemachine;

import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One aggregate type's transitions, deciding what an inbound event does to an entity in a given state.
 *
 * <p>Every decision is computed once at construction, so {@link #decide} is a lookup: it never walks the graph,
 * cannot loop on cycles, and gives the same answer for the same input, which a retried activity relies on.
 * Instances are immutable and safe to share between threads.
 */
public final class StateMachine {
    /** The virtual state of an entity that does not exist yet. */
    public static final String NONE = "none";

    private final String aggregateType;
    private final String initial;
    private final Map<String, Transition> transitions;
    /** current state -> event type -> decision, for every declared state and {@link #NONE}. */
    private final Map<String, Map<String, Decision>> decisions;

    private StateMachine(
            String aggregateType,
            String initial,
            Map<String, Transition> transitions,
            Set<String> states,
            TransitionGraph graph) {
        this.aggregateType = aggregateType;
        this.initial = initial;
        this.transitions = transitions;
        Map<String, Map<String, Decision>> table = new HashMap<>();
        for (String current : states) {
            Map<String, Decision> row = new HashMap<>();
            for (Transition transition : transitions.values()) {
                row.put(transition.eventType(), evaluate(current, transition, graph));
            }
            table.put(current, Map.copyOf(row));
        }
        this.decisions = Map.copyOf(table);
    }

    /**
     * Validates {@code config} and builds the machine.
     *
     * @throws IllegalArgumentException naming the machine and the offending entry when the configuration is
     *                                  inconsistent
     */
    public static StateMachine from(String aggregateType, StateMachineConfig config) {
        Map<String, Transition> transitions = ConfigValidator.transitions(aggregateType, config);
        TransitionGraph graph = new TransitionGraph(transitions.values());
        ConfigValidator.requireReachable(aggregateType, config.states(), graph);
        Set<String> states = new HashSet<>(config.states());
        states.add(NONE);
        return new StateMachine(aggregateType, config.initial(), transitions, states, graph);
    }

    /** Builds every configured machine, keyed by aggregate type; fails on the first inconsistent one. */
    public static Map<String, StateMachine> fromConfig(Map<String, StateMachineConfig> configs) {
        Map<String, StateMachine> machines = new LinkedHashMap<>();
        if (configs != null) {
            configs.forEach((aggregateType, config) -> machines.put(aggregateType, from(aggregateType, config)));
        }
        return Collections.unmodifiableMap(machines);
    }

    /**
     * Decides what {@code eventType} does to an entity in {@code currentState} ({@link #NONE} when the entity does
     * not exist yet). An event type or state this machine does not know is {@code REJECTED}.
     */
    public Decision decide(String currentState, String eventType) {
        Objects.requireNonNull(currentState, "currentState: pass \"" + NONE + "\" for an entity that does not exist");
        if (eventType == null || !transitions.containsKey(eventType)) {
            return Decision.rejected("unknown event type '" + eventType + "' for " + aggregateType);
        }
        Map<String, Decision> row = decisions.get(currentState);
        if (row == null) {
            // A state dropped from the configuration while entities still hold it: no rule can place them.
            return Decision.rejected(
                    "entity is in state '" + currentState + "', which " + aggregateType + " does not declare");
        }
        return row.get(eventType);
    }

    public String aggregateType() {
        return aggregateType;
    }

    public String initial() {
        return initial;
    }

    /** The event types this machine knows, in declaration order. */
    public Set<String> eventTypes() {
        return transitions.keySet();
    }

    private static Decision evaluate(String current, Transition transition, TransitionGraph graph) {
        String event = transition.eventType();
        String to = transition.to();
        if (transition.from().contains(current)) {
            String change = current.equals(NONE)
                    ? "creates the entity in " + to
                    : "moves the entity from " + current + " to " + to;
            return Decision.applied(to, transition.emit(), event + " " + change);
        }
        Optional<String> waitingFor = graph.firstEventTowards(current, transition.from());
        if (waitingFor.isPresent()) {
            return Decision.deferred(waitingFor.get(), "waiting for " + waitingFor.get() + ": " + describe(current));
        }
        if (current.equals(to) || graph.reachableFrom(to).contains(current)) {
            return Decision.stale("entity is already " + current + ", at or past " + to);
        }
        return Decision.rejected(event + " can never apply: entity is " + current);
    }

    private static String describe(String current) {
        return current.equals(NONE) ? "entity does not exist yet" : "entity is " + current;
    }
}
