package dev.relaybox.activities.statemachine;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;

/**
 * States as nodes, each transition as one edge per from-state. Searches keep a visited set, so self-loops and
 * cycles end; edges leave a state in transition declaration order, which makes every answer deterministic.
 */
final class TransitionGraph {
    private record Edge(String eventType, String to) {}

    private final Map<String, List<Edge>> edges = new HashMap<>();

    TransitionGraph(Collection<Transition> transitions) {
        for (Transition transition : transitions) {
            for (String from : transition.from()) {
                edges.computeIfAbsent(from, s -> new ArrayList<>())
                        .add(new Edge(transition.eventType(), transition.to()));
            }
        }
    }

    /** States reachable from {@code start} through one or more transitions; {@code start} only via a cycle. */
    Set<String> reachableFrom(String start) {
        Set<String> reached = new LinkedHashSet<>();
        Queue<String> queue = new ArrayDeque<>(List.of(start));
        while (!queue.isEmpty()) {
            for (Edge edge : edgesFrom(queue.remove())) {
                if (reached.add(edge.to())) {
                    queue.add(edge.to());
                }
            }
        }
        return Collections.unmodifiableSet(reached);
    }

    /**
     * The first event on a shortest path from {@code start} to any of {@code goals}, or empty when no goal is
     * reachable. Among equally short paths the one whose edges were declared first wins.
     */
    Optional<String> firstEventTowards(String start, Set<String> goals) {
        Map<String, String> firstEvent = new HashMap<>();
        Set<String> visited = new HashSet<>(Set.of(start));
        Queue<String> queue = new ArrayDeque<>(List.of(start));
        while (!queue.isEmpty()) {
            String state = queue.remove();
            for (Edge edge : edgesFrom(state)) {
                if (visited.add(edge.to())) {
                    String first = state.equals(start) ? edge.eventType() : firstEvent.get(state);
                    if (goals.contains(edge.to())) {
                        return Optional.of(first);
                    }
                    firstEvent.put(edge.to(), first);
                    queue.add(edge.to());
                }
            }
        }
        return Optional.empty();
    }

    private List<Edge> edgesFrom(String state) {
        return edges.getOrDefault(state, List.of());
    }
}
