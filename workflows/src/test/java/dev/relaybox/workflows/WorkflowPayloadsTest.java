package dev.relaybox.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.relaybox.workflows.inbound.InboxPlan;
import dev.relaybox.workflows.inbound.InboxStatus;
import dev.relaybox.workflows.outbound.CircuitState;
import dev.relaybox.workflows.outbound.DeliveryTarget;
import dev.relaybox.workflows.outbound.OutboxProgress;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Workflow values carry time as {@link Instant}: the SDK's default data converter (Jackson with its JavaTimeModule)
 * writes and reads them back unchanged, and reads the ISO-8601 text that earlier payloads hold.
 */
class WorkflowPayloadsTest {
    static final DataConverter CONVERTER = DefaultDataConverter.STANDARD_INSTANCE;
    static final Instant AT = Instant.parse("2026-12-01T10:15:30.123Z");

    @Test
    void instantsInWorkflowValuesSurviveThePayloadConverter() {
        UUID id = UUID.randomUUID();

        assertThat(roundTrip(new CircuitState(true, AT))).isEqualTo(new CircuitState(true, AT));
        assertThat(roundTrip(new DeliveryTarget(id, "shop", "https://shop.example", 2, AT)))
                .isEqualTo(new DeliveryTarget(id, "shop", "https://shop.example", 2, AT));
        InboxPlan plan =
                new InboxPlan("shop", "order.paid", "order:42", Duration.ofMinutes(1), Duration.ofHours(24), AT);
        assertThat(roundTrip(plan)).isEqualTo(plan);
        InboxStatus status = new InboxStatus(id, "deferred", "DEFERRED", 1, "waiting", "order.paid", AT);
        assertThat(roundTrip(status)).isEqualTo(status);
        OutboxProgress progress = new OutboxProgress(
                id, "retrying", List.of(new OutboxProgress.DeliveryProgress(id, "shop", "retrying", 1, "503", AT)));
        assertThat(roundTrip(progress)).isEqualTo(progress);
    }

    @Test
    void anIsoTimestampInAnEarlierPayloadReadsAsTheSameInstant() {
        Payload earlier = CONVERTER.toPayload("x").orElseThrow().toBuilder()
                .setData(ByteString.copyFrom(
                        "{\"circuitOpen\":true,\"nextProbeAt\":\"2026-12-01T10:15:30.123Z\"}", StandardCharsets.UTF_8))
                .build();

        assertThat(CONVERTER.fromPayload(earlier, CircuitState.class, CircuitState.class))
                .isEqualTo(new CircuitState(true, AT));
    }

    @SuppressWarnings("unchecked")
    private static <T> T roundTrip(T value) {
        Optional<Payload> payload = CONVERTER.toPayload(value);
        return (T) CONVERTER.fromPayload(payload.orElseThrow(), value.getClass(), value.getClass());
    }
}
