package dev.relaybox.workflows.outbound;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class OutboundStatusesTest {

    @Test
    void onlyUnfinishedDeliveriesCanBeDeliveredOrGiveUp() {
        assertThat(DeliveryStatus.before(DeliveryStatus.DELIVERED)).containsExactlyInAnyOrder("PENDING", "RETRYING");
        assertThat(DeliveryStatus.before(DeliveryStatus.DEAD_LETTERED))
                .containsExactlyInAnyOrder("PENDING", "RETRYING");
        assertThat(DeliveryStatus.before(DeliveryStatus.PAUSED)).containsExactlyInAnyOrder("PENDING", "RETRYING");
        assertThat(DeliveryStatus.finishedNames()).containsExactlyInAnyOrder("DELIVERED", "DEAD_LETTERED", "CANCELLED");
    }

    @Test
    void onlyAReplayOrAnEnabledEndpointBringsADeliveryBack() {
        assertThat(DeliveryStatus.before(DeliveryStatus.PENDING)).containsExactlyInAnyOrder("PAUSED", "DEAD_LETTERED");
        assertThat(DeliveryStatus.DELIVERED.canBecome(DeliveryStatus.PENDING)).isFalse();
        assertThat(DeliveryStatus.CANCELLED.canBecome(DeliveryStatus.PENDING)).isFalse();
    }

    @Test
    void finishedOrQuarantinedOutboxRowsAreNotQuarantinedAgain() {
        assertThat(OutboxStatus.before(OutboxStatus.QUARANTINED)).containsExactlyInAnyOrder("PENDING", "DISPATCHED");
        assertThat(OutboxStatus.before(OutboxStatus.DISPATCHED)).containsExactly("PENDING");
    }

    @Test
    void workflowPhasesNameEveryStoredStatusAsTheDatabaseDoes() {
        for (DeliveryStatus status : DeliveryStatus.values()) {
            DeliveryPhase phase = DeliveryPhase.valueOf(status.name());
            assertThat(phase.stored()).isEqualTo(status);
            assertThat(phase.label()).isEqualTo(status.name().toLowerCase());
        }
    }

    @Test
    void workflowStatusIsTheMostPressingPhase() {
        assertThat(DeliveryPhase.overall(List.of())).isEqualTo(DeliveryPhase.DELIVERED);
        assertThat(DeliveryPhase.overall(List.of(DeliveryPhase.DELIVERED, DeliveryPhase.SENDING)))
                .isEqualTo(DeliveryPhase.PENDING);
        assertThat(DeliveryPhase.overall(
                        List.of(DeliveryPhase.DEAD_LETTERED, DeliveryPhase.WAITING, DeliveryPhase.RETRYING)))
                .isEqualTo(DeliveryPhase.RETRYING);
        assertThat(DeliveryPhase.overall(List.of(DeliveryPhase.PAUSED, DeliveryPhase.DEAD_LETTERED)))
                .isEqualTo(DeliveryPhase.DEAD_LETTERED);
    }
}
