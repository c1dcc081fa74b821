package dev.relaybox.service.temporal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.ShippedConfig;
import io.dropwizard.configuration.ConfigurationValidationException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The worker's slot counts come from config.yml's environment variables and are refused below one. */
class WorkerSlotsConfigTest {

    @Test
    void localActivitySlotsComeFromTheirVariable() throws Exception {
        RelayboxConfiguration config = ShippedConfig.read(Map.of("TEMPORAL_MAX_LOCAL_ACTIVITIES", "3"));

        assertThat(config.getTemporal().getMaxConcurrentLocalActivities()).isEqualTo(3);
    }

    @Test
    void zeroLocalActivitySlotsAreRefusedNamingTheKey() {
        assertThatThrownBy(() -> ShippedConfig.read(Map.of("TEMPORAL_MAX_LOCAL_ACTIVITIES", "0")))
                .isInstanceOf(ConfigurationValidationException.class)
                .hasMessageContaining("temporal.maxConcurrentLocalActivities must be greater than or equal to 1");
    }
}
