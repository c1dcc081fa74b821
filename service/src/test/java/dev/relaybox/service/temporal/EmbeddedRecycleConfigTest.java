package dev.relaybox.service.temporal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.ShippedConfig;
import dev.relaybox.service.config.TemporalFactory;
import io.dropwizard.configuration.ConfigurationValidationException;
import io.dropwizard.jackson.Jackson;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** temporal.embeddedRecycleAfter: read from the environment, checked at start-up, only ever applied in embedded mode. */
class EmbeddedRecycleConfigTest {
    private static final ObjectMapper MAPPER = Jackson.newObjectMapper();

    @Test
    void shippedConfigRecyclesEmbeddedModeByDefaultAndTheEnvironmentChangesIt() throws Exception {
        assertThat(ShippedConfig.read(Map.of()).getTemporal().embeddedRecycleAfter())
                .isEqualTo(TemporalFactory.DEFAULT_EMBEDDED_RECYCLE_AFTER);
        assertThat(ShippedConfig.read(Map.of("TEMPORAL_EMBEDDED_RECYCLE_AFTER", "0"))
                        .getTemporal()
                        .embeddedRecycleAfter())
                .isZero();
        assertThat(ShippedConfig.read(Map.of("TEMPORAL_EMBEDDED_RECYCLE_AFTER", "20000"))
                        .getTemporal()
                        .embeddedRecycleAfter())
                .isEqualTo(20000);
    }

    @Test
    void negativeCountRefusesToStartNamingTheKey() {
        assertThatThrownBy(() -> ShippedConfig.read(Map.of("TEMPORAL_EMBEDDED_RECYCLE_AFTER", "-1")))
                .isInstanceOf(ConfigurationValidationException.class)
                .hasMessageContaining("temporal.embeddedRecycleAfter must be greater than or equal to 0");
    }

    @Test
    void notANumberRefusesToStart() {
        assertThatThrownBy(() -> ShippedConfig.read(Map.of("TEMPORAL_EMBEDDED_RECYCLE_AFTER", "often")))
                .hasMessageContaining("embeddedRecycleAfter");
    }

    @Test
    void anExternalServerIsNeverRecycled() throws Exception {
        RelayboxConfiguration production = ShippedConfig.read(
                Map.of("TEMPORAL_ADDRESS", "temporal.example:7233", "TEMPORAL_EMBEDDED_RECYCLE_AFTER", "100"));
        assertThat(production.getTemporal().isEmbedded()).isFalse();
        assertThat(production.getTemporal().embeddedRecycleAfter()).isZero();
    }
}
