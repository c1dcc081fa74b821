package dev.relaybox.activities.statemachine;

import static dev.relaybox.activities.statemachine.StateMachineFixtures.orderConfig;
import static dev.relaybox.activities.statemachine.StateMachineFixtures.orderConfigWith;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StateMachineValidationTest {

    @Test
    void transitionToUnknownStateIsNamed() {
        assertRejected(
                orderConfigWith("order.paid", transition(List.of("created"), "payed")),
                "state machine 'order': transition 'order.paid' goes to unknown state 'payed'");
    }

    @Test
    void transitionFromUnknownStateIsNamed() {
        assertRejected(
                orderConfigWith("order.shipped", transition(List.of("payed"), "shipped")),
                "state machine 'order': transition 'order.shipped' comes from unknown state 'payed'");
    }

    @Test
    void emptyStatesAreRejected() {
        assertRejected(
                new StateMachineConfig(List.of(), "created", orderConfig().transitions()),
                "state machine 'order': declares no states");
    }

    @Test
    void blankStateIsRejected() {
        assertRejected(
                withStates("created", " ", "paid", "shipped", "delivered", "cancelled"),
                "state machine 'order': declares a blank state");
    }

    @Test
    void duplicateStateIsRejected() {
        assertRejected(
                withStates("created", "paid", "shipped", "paid", "delivered", "cancelled"),
                "state machine 'order': declares state 'paid' twice");
    }

    @Test
    void noneDeclaredAsRealStateIsRejected() {
        assertRejected(
                withStates("none", "created", "paid", "shipped", "delivered", "cancelled"),
                "state machine 'order': declares 'none' as a state, "
                        + "but 'none' is reserved for an entity that does not exist yet");
    }

    @Test
    void missingInitialIsRejected() {
        assertRejected(
                new StateMachineConfig(
                        orderConfig().states(), null, orderConfig().transitions()),
                "state machine 'order': has no initial state");
    }

    @Test
    void initialOutsideStatesIsRejected() {
        assertRejected(
                new StateMachineConfig(
                        orderConfig().states(), "new", orderConfig().transitions()),
                "state machine 'order': initial state 'new' is not one of its states");
    }

    @Test
    void noTransitionsAreRejected() {
        assertRejected(
                new StateMachineConfig(orderConfig().states(), "created", Map.of()),
                "state machine 'order': declares no transitions");
    }

    @Test
    void transitionWithoutBodyIsRejected() {
        assertRejected(withTransition("order.paid", null), "state machine 'order': transition 'order.paid' is empty");
    }

    @Test
    void transitionWithNoFromIsRejected() {
        assertRejected(
                orderConfigWith("order.paid", transition(List.of(), "paid")),
                "state machine 'order': transition 'order.paid' has no from-states");
    }

    @Test
    void blankFromStateIsRejected() {
        assertRejected(
                orderConfigWith("order.paid", transition(Arrays.asList("created", null), "paid")),
                "state machine 'order': transition 'order.paid' has a blank from-state");
    }

    @Test
    void fromStateListedTwiceIsRejected() {
        assertRejected(
                orderConfigWith("order.cancelled", transition(List.of("created", "created"), "cancelled")),
                "state machine 'order': transition 'order.cancelled' lists from-state 'created' twice");
    }

    @Test
    void transitionWithNoToIsRejected() {
        assertRejected(
                orderConfigWith("order.paid", transition(List.of("created"), null)),
                "state machine 'order': transition 'order.paid' has no to-state");
    }

    @Test
    void transitionToNoneIsRejected() {
        assertRejected(
                orderConfigWith("order.deleted", transition(List.of("cancelled"), "none")),
                "state machine 'order': transition 'order.deleted' goes to 'none', "
                        + "but an entity cannot stop existing; declare a state such as 'deleted'");
    }

    @Test
    void blankEmitIsRejected() {
        assertRejected(
                orderConfigWith("order.paid", new TransitionConfig(List.of("created"), "paid", "")),
                "state machine 'order': transition 'order.paid' has a blank emit; leave it out to emit nothing");
    }

    @Test
    void blankEventTypeIsRejected() {
        assertRejected(
                orderConfigWith("", transition(List.of("created"), "paid")),
                "state machine 'order': declares a transition with a blank event type");
    }

    @Test
    void machineWithoutCreatingTransitionIsRejected() {
        assertRejected(
                orderConfigWith("order.created", null),
                "state machine 'order': no transition comes from 'none', so no order could ever be created");
    }

    @Test
    void creatingTransitionMustLandInInitialState() {
        assertRejected(
                orderConfigWith("order.imported", transition(List.of("none"), "paid")),
                "state machine 'order': transition 'order.imported' creates the entity in 'paid', "
                        + "but the initial state is 'created'");
    }

    @Test
    void unreachableStateIsRejected() {
        assertRejected(
                withStates("created", "paid", "shipped", "delivered", "cancelled", "returned"),
                "state machine 'order': state 'returned' cannot be reached from 'none' by any transition");
    }

    @Test
    void blankMachineNameIsRejected() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> StateMachine.from(" ", orderConfig()))
                .withMessage("state machine name must not be blank");
    }

    @Test
    void missingConfigurationIsRejected() {
        assertRejected(null, "state machine 'order': has no configuration");
    }

    @Test
    void fromConfigBuildsEveryMachineByAggregateType() {
        Map<String, StateMachineConfig> configs = new LinkedHashMap<>();
        configs.put("order", orderConfig());
        configs.put(
                "invoice",
                new StateMachineConfig(
                        List.of("open"), "open", Map.of("invoice.opened", transition(List.of("none"), "open"))));

        Map<String, StateMachine> machines = StateMachine.fromConfig(configs);

        assertThat(machines).containsOnlyKeys("order", "invoice");
        assertThat(machines.get("invoice").aggregateType()).isEqualTo("invoice");
        assertThat(machines.get("order").initial()).isEqualTo("created");
    }

    @Test
    void fromConfigNamesTheBrokenMachine() {
        Map<String, StateMachineConfig> configs = new LinkedHashMap<>();
        configs.put("order", orderConfig());
        configs.put(
                "invoice",
                new StateMachineConfig(
                        List.of("open"), "opened", Map.of("invoice.opened", transition(List.of("none"), "open"))));

        assertThatIllegalArgumentException()
                .isThrownBy(() -> StateMachine.fromConfig(configs))
                .withMessage("state machine 'invoice': initial state 'opened' is not one of its states");
    }

    @Test
    void noConfiguredMachinesIsEmpty() {
        assertThat(StateMachine.fromConfig(null)).isEmpty();
        assertThat(StateMachine.fromConfig(Map.of())).isEmpty();
    }

    private static void assertRejected(StateMachineConfig config, String message) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> StateMachine.from("order", config))
                .withMessage(message);
    }

    private static TransitionConfig transition(List<String> from, String to) {
        return new TransitionConfig(from, to, null);
    }

    private static StateMachineConfig withStates(String... states) {
        return new StateMachineConfig(
                Arrays.asList(states), "created", orderConfig().transitions());
    }

    private static StateMachineConfig withTransition(String eventType, TransitionConfig transition) {
        Map<String, TransitionConfig> transitions =
                new LinkedHashMap<>(orderConfig().transitions());
        transitions.put(eventType, transition);
        return new StateMachineConfig(orderConfig().states(), "created", transitions);
    }
}
