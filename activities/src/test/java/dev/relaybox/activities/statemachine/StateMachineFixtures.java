package dev.relaybox.activities.statemachine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The order machine from the design, as YAML (how operators write it) and as records (what tests tweak). */
final class StateMachineFixtures {
    static final String ORDER_YAML = "/statemachine/order.yml";

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private StateMachineFixtures() {}

    /** Reads the {@code stateMachines:} section of a YAML resource the way the service configuration will. */
    static Map<String, StateMachineConfig> stateMachinesFromYaml(String resource) {
        try (InputStream in = StateMachineFixtures.class.getResourceAsStream(resource)) {
            JsonNode root = YAML.readTree(in);
            return YAML.convertValue(
                    root.get("stateMachines"),
                    YAML.getTypeFactory()
                            .constructMapType(LinkedHashMap.class, String.class, StateMachineConfig.class));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static StateMachine orderMachine() {
        return StateMachine.from("order", stateMachinesFromYaml(ORDER_YAML).get("order"));
    }

    static StateMachineConfig orderConfig() {
        Map<String, TransitionConfig> transitions = new LinkedHashMap<>();
        transitions.put("order.created", new TransitionConfig(List.of("none"), "created", null));
        transitions.put("order.paid", new TransitionConfig(List.of("created"), "paid", "order.payment_confirmed"));
        transitions.put("order.shipped", new TransitionConfig(List.of("paid"), "shipped", "order.shipped"));
        transitions.put("order.delivered", new TransitionConfig(List.of("shipped"), "delivered", null));
        transitions.put(
                "order.cancelled", new TransitionConfig(List.of("created", "paid"), "cancelled", "order.cancelled"));
        return new StateMachineConfig(
                List.of("created", "paid", "shipped", "delivered", "cancelled"), "created", transitions);
    }

    /** The order config with one transition replaced, or removed when {@code transition} is null. */
    static StateMachineConfig orderConfigWith(String eventType, TransitionConfig transition) {
        StateMachineConfig base = orderConfig();
        Map<String, TransitionConfig> transitions = new LinkedHashMap<>(base.transitions());
        if (transition == null) {
            transitions.remove(eventType);
        } else {
            transitions.put(eventType, transition);
        }
        return new StateMachineConfig(base.states(), base.initial(), transitions);
    }
}
