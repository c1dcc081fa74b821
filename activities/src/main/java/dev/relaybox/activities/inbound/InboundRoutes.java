package dev.relaybox.activities.inbound;

import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Where each partner's verified events go besides (or instead of) a state machine: per partner, routes from event
 * type patterns to endpoint names. A pattern is matched as endpoint event-type filters are: {@code *}, an exact type,
 * or {@code prefix.*}.
 */
public final class InboundRoutes {
    /** Events of these types go to these endpoints. */
    public record Route(List<String> eventTypes, List<String> endpoints) {
        public Route {
            eventTypes = List.copyOf(eventTypes);
            endpoints = List.copyOf(endpoints);
        }

        boolean matches(String eventType) {
            return eventTypes.stream().anyMatch(pattern -> matches(pattern, eventType));
        }

        static boolean matches(String pattern, String eventType) {
            return pattern.equals("*")
                    || pattern.equals(eventType)
                    || (pattern.endsWith(".*") && eventType.startsWith(pattern.substring(0, pattern.length() - 1)));
        }
    }

    private static final InboundRoutes NONE = new InboundRoutes(Map.of());

    private final Map<String, List<Route>> byPartner;

    public InboundRoutes(Map<String, List<Route>> byPartner) {
        this.byPartner = Map.copyOf(byPartner);
    }

    public static InboundRoutes none() {
        return NONE;
    }

    /** The endpoints every route of {@code partner} matching {@code eventType} names, sorted; empty when none. */
    public List<String> endpointsFor(String partner, String eventType) {
        TreeSet<String> endpoints = new TreeSet<>();
        byPartner.getOrDefault(partner, List.of()).stream()
                .filter(route -> route.matches(eventType))
                .forEach(route -> endpoints.addAll(route.endpoints()));
        return List.copyOf(endpoints);
    }
}
