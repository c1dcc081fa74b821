package dev.relaybox.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What {@code relaybox receive} prints about a body: the event type from the envelope, or that there is none. */
class ReceiveCommandTest {

    @Test
    void envelopeShowsItsTypeAndTimestamp() {
        assertThat(
                        ReceiveCommand.describe(
                                bytes(
                                        "{\"type\" : \"order.shipped\", \"timestamp\" : \"2026-11-30T10:00:00.123456Z\", \"data\" : {\"orderId\": 42}}")))
                .isEqualTo("type=order.shipped timestamp=2026-11-30T10:00:00.123456Z");
    }

    @Test
    void rawPayloadAndNonJsonAreNamedAsSuch() {
        assertThat(ReceiveCommand.describe(bytes("{\"orderId\": 42}"))).isEqualTo("raw payload (no envelope)");
        assertThat(ReceiveCommand.describe(bytes("not json {"))).isEqualTo("body is not JSON");
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
