package dev.relaybox.activities.statemachine;

import static dev.relaybox.activities.statemachine.StateMachineFixtures.orderMachine;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.workflows.inbound.InboxOutcome.Outcome;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Whatever order and however often partners deliver an order's events, the inbox ends where in-order would. */
class StateMachinePropertiesTest {
    private static final List<String> IN_ORDER =
            List.of("order.created", "order.paid", "order.shipped", "order.delivered");

    private final StateMachine order = orderMachine();

    @ParameterizedTest(name = "seed {index}: {0}")
    @MethodSource("shuffledWithDuplicates")
    void anyArrivalOrderWithDuplicatesEndsDeliveredWithEverythingProcessed(List<String> arrivals) {
        Inbox inbox = new Inbox(order);

        arrivals.forEach(inbox::receive);

        assertThat(inbox.state).isEqualTo("delivered");
        assertThat(inbox.deferred).isEmpty();
        assertThat(inbox.rejected).isEmpty();
        assertThat(inbox.processed).hasSameSizeAs(arrivals);
        assertThat(inbox.applied).containsExactlyElementsOf(IN_ORDER);
    }

    /** Every permutation of the four events, then 500 seeded shuffles with up to 8 random duplicates. */
    static Stream<List<String>> shuffledWithDuplicates() {
        return Stream.concat(
                OrderArrivals.permutations(IN_ORDER).stream(),
                IntStream.range(0, 500)
                        .mapToObj(seed -> OrderArrivals.shuffledWithDuplicates(IN_ORDER, new Random(seed), 8)));
    }

    /** The inbox processor in miniature: an APPLIED event releases the deferred ones, as the release signal does. */
    private static final class Inbox {
        private final StateMachine machine;
        private final List<String> deferred = new ArrayList<>();
        private final List<String> processed = new ArrayList<>();
        private final List<String> applied = new ArrayList<>();
        private final List<String> rejected = new ArrayList<>();
        private String state = StateMachine.NONE;

        Inbox(StateMachine machine) {
            this.machine = machine;
        }

        void receive(String eventType) {
            Outcome outcome = process(eventType);
            if (outcome == Outcome.DEFERRED) {
                deferred.add(eventType);
            } else if (outcome == Outcome.APPLIED) {
                releaseDeferred();
            }
        }

        private void releaseDeferred() {
            boolean changed = true;
            while (changed) {
                changed = false;
                for (Iterator<String> it = deferred.iterator(); it.hasNext(); ) {
                    Outcome outcome = process(it.next());
                    if (outcome != Outcome.DEFERRED) {
                        it.remove();
                    }
                    changed |= outcome == Outcome.APPLIED;
                }
            }
        }

        private Outcome process(String eventType) {
            Decision decision = machine.decide(state, eventType);
            switch (decision.outcome()) {
                case APPLIED -> {
                    state = decision.targetState();
                    applied.add(eventType);
                    processed.add(eventType);
                }
                case STALE -> processed.add(eventType);
                case REJECTED -> rejected.add(eventType + ": " + decision.reason());
                case DEFERRED -> {}
            }
            return decision.outcome();
        }
    }
}
