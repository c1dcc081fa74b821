package dev.relaybox.activities.statemachine;

import static dev.relaybox.activities.statemachine.StateMachineFixtures.orderMachine;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.relaybox.workflows.inbound.InboxOutcome.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StateMachineTest {
    private final StateMachine order = orderMachine();

    @Test
    void inOrderOrderEventsAreAllApplied() {
        assertThat(order.decide("none", "order.created"))
                .isEqualTo(new Decision(
                        Outcome.APPLIED, "created", null, null, "order.created creates the entity in created"));
        assertThat(order.decide("created", "order.paid"))
                .isEqualTo(new Decision(
                        Outcome.APPLIED,
                        "paid",
                        "order.payment_confirmed",
                        null,
                        "order.paid moves the entity from created to paid"));
        assertThat(order.decide("paid", "order.shipped"))
                .isEqualTo(new Decision(
                        Outcome.APPLIED,
                        "shipped",
                        "order.shipped",
                        null,
                        "order.shipped moves the entity from paid to shipped"));
        assertThat(order.decide("shipped", "order.delivered"))
                .isEqualTo(new Decision(
                        Outcome.APPLIED,
                        "delivered",
                        null,
                        null,
                        "order.delivered moves the entity from shipped to delivered"));
    }

    @Test
    void cancellingAppliesFromEveryListedState() {
        assertThat(order.decide("created", "order.cancelled").targetState()).isEqualTo("cancelled");
        assertThat(order.decide("paid", "order.cancelled").emit()).isEqualTo("order.cancelled");
    }

    @Test
    void shippedBeforePaidIsDeferredWaitingForPaid() {
        Decision decision = order.decide("created", "order.shipped");

        assertThat(decision.outcome()).isEqualTo(Outcome.DEFERRED);
        assertThat(decision.waitingFor()).isEqualTo("order.paid");
        assertThat(decision.reason()).isEqualTo("waiting for order.paid: entity is created");
        assertThat(decision.targetState()).isNull();
        assertThat(decision.emit()).isNull();
    }

    @Test
    void paidOnMissingEntityIsDeferredWaitingForCreated() {
        Decision decision = order.decide(StateMachine.NONE, "order.paid");

        assertThat(decision.outcome()).isEqualTo(Outcome.DEFERRED);
        assertThat(decision.waitingFor()).isEqualTo("order.created");
        assertThat(decision.reason()).isEqualTo("waiting for order.created: entity does not exist yet");
    }

    @Test
    void deferredEventWaitsForTheNextStepNotItsDirectPrecondition() {
        assertThat(order.decide("none", "order.delivered").waitingFor()).isEqualTo("order.created");
        assertThat(order.decide("created", "order.delivered").waitingFor()).isEqualTo("order.paid");
    }

    @Test
    void paidWhenAlreadyShippedIsStale() {
        assertThat(order.decide("shipped", "order.paid"))
                .isEqualTo(new Decision(Outcome.STALE, null, null, null, "entity is already shipped, at or past paid"));
    }

    @Test
    void duplicateOfTheEventThatSetTheCurrentStateIsStale() {
        assertThat(order.decide("paid", "order.paid").reason()).isEqualTo("entity is already paid, at or past paid");
        assertThat(order.decide("delivered", "order.created").outcome()).isEqualTo(Outcome.STALE);
    }

    @Test
    void shippedAfterCancelledIsRejected() {
        assertThat(order.decide("cancelled", "order.shipped"))
                .isEqualTo(new Decision(
                        Outcome.REJECTED, null, null, null, "order.shipped can never apply: entity is cancelled"));
    }

    @Test
    void cancelledAfterShippedIsRejected() {
        assertThat(order.decide("shipped", "order.cancelled").reason())
                .isEqualTo("order.cancelled can never apply: entity is shipped");
    }

    @Test
    void unknownEventIsRejected() {
        assertThat(order.decide("paid", "order.refunded"))
                .isEqualTo(new Decision(
                        Outcome.REJECTED, null, null, null, "unknown event type 'order.refunded' for order"));
    }

    @Test
    void stateTheMachineDoesNotDeclareIsRejected() {
        assertThat(order.decide("returned", "order.paid"))
                .isEqualTo(new Decision(
                        Outcome.REJECTED,
                        null,
                        null,
                        null,
                        "entity is in state 'returned', which order does not declare"));
    }

    @Test
    void missingCurrentStateIsAProgrammingError() {
        assertThatNullPointerException()
                .isThrownBy(() -> order.decide(null, "order.paid"))
                .withMessageContaining("\"none\"");
    }

    @Test
    void describesItself() {
        assertThat(order.aggregateType()).isEqualTo("order");
        assertThat(order.initial()).isEqualTo("created");
        assertThat(order.eventTypes())
                .containsExactly("order.created", "order.paid", "order.shipped", "order.delivered", "order.cancelled");
        assertThat(order.decide("created", "order.paid").emit()).isEqualTo("order.payment_confirmed");
        assertThat(order.decide("shipped", "order.delivered").emit()).isNull();
        assertThat(order.decide("created", "order.refunded").emit()).isNull();
    }

    @Test
    void equallyShortPathsAreBrokenByDeclarationOrder() {
        StateMachine viaB = machine(
                List.of("a", "b", "c", "d"),
                "e.created",
                "none",
                "a",
                "e.viaB",
                "a",
                "b",
                "e.viaC",
                "a",
                "c",
                "e.finish",
                "b,c",
                "d");
        StateMachine viaC = machine(
                List.of("a", "b", "c", "d"),
                "e.created",
                "none",
                "a",
                "e.viaC",
                "a",
                "c",
                "e.viaB",
                "a",
                "b",
                "e.finish",
                "b,c",
                "d");

        assertThat(viaB.decide("a", "e.finish").reason()).isEqualTo("waiting for e.viaB: entity is a");
        assertThat(viaC.decide("a", "e.finish").reason()).isEqualTo("waiting for e.viaC: entity is a");
    }

    @Test
    void shorterPathWinsOverEarlierDeclaredLongerOne() {
        StateMachine machine = machine(
                List.of("a", "x", "b", "c", "d"),
                "e.created",
                "none",
                "a",
                "e.detour",
                "a",
                "x",
                "e.detourEnd",
                "x",
                "b",
                "e.direct",
                "a",
                "c",
                "e.finish",
                "b,c",
                "d");

        assertThat(machine.decide("a", "e.finish").waitingFor()).isEqualTo("e.direct");
    }

    @Test
    void selfLoopAppliesAndKeepsTheState() {
        Decision decision = ticketMachine().decide("in_progress", "ticket.noted");

        assertThat(decision.outcome()).isEqualTo(Outcome.APPLIED);
        assertThat(decision.targetState()).isEqualTo("in_progress");
    }

    @Test
    void cyclesDeferInsteadOfLoopingForever() {
        StateMachine ticket = assertTimeoutPreemptively(Duration.ofSeconds(5), StateMachineTest::ticketMachine);

        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            for (String state : List.of("none", "open", "in_progress", "closed")) {
                for (String event : ticket.eventTypes()) {
                    assertThat(ticket.decide(state, event)).isNotNull();
                }
            }
        });
        // Reopening makes every state reachable again, so a closed ticket's note waits rather than going stale.
        assertThat(ticket.decide("closed", "ticket.noted").reason())
                .isEqualTo("waiting for ticket.reopened: entity is closed");
        assertThat(ticket.decide("open", "ticket.reopened").waitingFor()).isEqualTo("ticket.started");
    }

    private static StateMachine ticketMachine() {
        return machine(
                List.of("open", "in_progress", "closed"),
                "ticket.opened",
                "none",
                "open",
                "ticket.started",
                "open",
                "in_progress",
                "ticket.paused",
                "in_progress",
                "open",
                "ticket.noted",
                "in_progress",
                "in_progress",
                "ticket.closed",
                "in_progress",
                "closed",
                "ticket.reopened",
                "closed",
                "open");
    }

    /** Builds a machine from triples: event type, comma-separated from-states, to-state. The first state is initial. */
    private static StateMachine machine(List<String> states, String... triples) {
        Map<String, TransitionConfig> transitions = new LinkedHashMap<>();
        for (int i = 0; i < triples.length; i += 3) {
            transitions.put(
                    triples[i],
                    new TransitionConfig(new ArrayList<>(List.of(triples[i + 1].split(","))), triples[i + 2], null));
        }
        return StateMachine.from("test", new StateMachineConfig(states, states.get(0), transitions));
    }
}
