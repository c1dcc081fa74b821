package dev.relaybox.activities.statemachine;

import static dev.relaybox.activities.statemachine.StateMachineFixtures.ORDER_YAML;
import static dev.relaybox.activities.statemachine.StateMachineFixtures.orderConfig;
import static dev.relaybox.activities.statemachine.StateMachineFixtures.stateMachinesFromYaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StateMachineConfigYamlTest {

    @Test
    void designExampleDeserialisesIntoTheRecords() {
        Map<String, StateMachineConfig> machines = stateMachinesFromYaml(ORDER_YAML);

        assertThat(machines).containsOnlyKeys("order");
        assertThat(machines.get("order")).isEqualTo(orderConfig());
    }

    @Test
    void transitionsKeepTheirYamlOrder() {
        StateMachineConfig order = stateMachinesFromYaml(ORDER_YAML).get("order");

        assertThat(order.transitions().keySet())
                .containsExactly("order.created", "order.paid", "order.shipped", "order.delivered", "order.cancelled");
        assertThat(StateMachine.from("order", order).eventTypes())
                .containsExactly("order.created", "order.paid", "order.shipped", "order.delivered", "order.cancelled");
    }

    @Test
    void omittedEmitIsNull() {
        StateMachineConfig order = stateMachinesFromYaml(ORDER_YAML).get("order");

        assertThat(order.transitions().get("order.delivered").emit()).isNull();
        assertThat(order.transitions().get("order.paid").emit()).isEqualTo("order.payment_confirmed");
    }

    @Test
    void misspelledKeyFailsToLoadInsteadOfBeingIgnored() {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());

        assertThatThrownBy(() -> yaml.readValue("{form: [created], to: paid}", TransitionConfig.class))
                .isInstanceOf(UnrecognizedPropertyException.class)
                .hasMessageContaining("\"form\"");
    }

    @Test
    void missingListsBecomeEmptySoValidationCanNameThem() throws Exception {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());

        StateMachineConfig config = yaml.readValue("initial: created", StateMachineConfig.class);

        assertThat(config.states()).isEmpty();
        assertThat(config.transitions()).isEmpty();
        assertThatThrownBy(() -> StateMachine.from("order", config))
                .hasMessage("state machine 'order': declares no states");
    }
}
