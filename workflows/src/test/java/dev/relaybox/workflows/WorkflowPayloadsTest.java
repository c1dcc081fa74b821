package dev.relaybox.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.relaybox.workflows.inbound.InboxPlan;
import dev.relaybox.workflows.inbound.InboxStatus;
import dev.relaybox.workflows.outbound.CircuitState;
import dev.relaybox.workflows.outbound.DeliveryPlan;
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
        assertThat(roundTrip(new DeliveryTarget(id, "shop", "https://shop.example", 2, AT, true)))
                .isEqualTo(new DeliveryTarget(id, "shop", "https://shop.example", 2, AT, true));
        InboxPlan plan = new InboxPlan(
                "shop", "order.paid", "order:42", Duration.ofMinutes(1), Duration.ofHours(24), AT, InboxPlan.CURRENT);
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

    @Test
    void aPlanRecordedByRelease10IsCarriedOutAsThen() {
        // The plan marker of a first-time delivery recorded by 1.0.0, as it is in its history.
        Payload recorded = CONVERTER.toPayload("x").orElseThrow().toBuilder()
                .setData(ByteString.copyFrom(
                        "{\"eventType\":\"order.paid\",\"aggregate\":\"order:42\",\"targets\":[{\"deliveryId\":"
                                + "\"53f9d001-0d1c-40b2-a862-fd3aafaa3fb6\",\"endpointName\":\"shop\",\"url\":"
                                + "\"http://127.0.0.1:46477/hooks\",\"attemptsSoFar\":0,\"nextAttemptAt\":null}],"
                                + "\"schedule\":{\"delays\":[60.000000000,300.000000000,900.000000000],\"jitter\":0.0,"
                                + "\"maxRetryAfter\":600.000000000}}",
                        StandardCharsets.UTF_8))
                .build();

        DeliveryPlan plan = CONVERTER.fromPayload(recorded, DeliveryPlan.class, DeliveryPlan.class);

        assertThat(plan.revision()).isEqualTo(DeliveryPlan.ADMIT_AND_SETTLE_APART);
        assertThat(plan.targets())
                .singleElement()
                .satisfies(
                        t -> assertThat(t.goesAtOnce()).as("asks the controls").isFalse());
    }

    @SuppressWarnings("unchecked")
    private static <T> T roundTrip(T value) {
        Optional<Payload> payload = CONVERTER.toPayload(value);
        return (T) CONVERTER.fromPayload(payload.orElseThrow(), value.getClass(), value.getClass());
    }
}
