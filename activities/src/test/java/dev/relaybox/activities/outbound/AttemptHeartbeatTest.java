package dev.relaybox.activities.outbound;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.store.EndpointControls;
import dev.relaybox.workflows.outbound.DeliverySchedule;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An attempt heartbeats while its receiver takes its time, so that Temporal tells a slow receiver (answered once)
 * from a dead worker (attempted again): real PostgreSQL, real HTTP, the receiver slower than the heartbeat timeout.
 */
class AttemptHeartbeatTest {
    static final DeliverySchedule SCHEDULE =
            new DeliverySchedule(List.of(Duration.ofMinutes(1)), 0, Duration.ofMinutes(10));

    final TestReceiver receiver = new TestReceiver();
    final OutboundHarness outbound =
            new OutboundHarness(true, SCHEDULE, CircuitSettings.defaults(), Duration.ofSeconds(25));

    @AfterEach
    void stop() {
        outbound.close();
        receiver.close();
    }

    @Test
    void aReceiverSlowerThanTheHeartbeatTimeoutIsSentTheWebhookOnce() {
        receiver.latency(Duration.ofSeconds(13));
        outbound.endpoint("slow", receiver.url("/slow"), EndpointControls.defaults());
        UUID outboxId = outbound.enqueue("42", "{}");

        outbound.start(List.of(outboxId));
        outbound.awaitAll(List.of(outboxId));

        assertThat(receiver.requests()).as("requests taken, answered or not").isEqualTo(1);
        assertThat(outbound.count("SELECT count(*) FROM delivery_attempts WHERE status_code = 200"))
                .isEqualTo(1);
        assertThat(outbound.count("SELECT count(*) FROM deliveries WHERE status = 'DELIVERED'"))
                .isEqualTo(1);
    }
}
