package dev.relaybox.service.temporal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.config.TemporalFactory;
import io.dropwizard.configuration.ConfigurationValidationException;
import io.dropwizard.configuration.FileConfigurationSourceProvider;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import java.nio.file.Path;
import java.util.Map;
import org.apache.commons.text.StringSubstitutor;
import org.junit.jupiter.api.Test;

/** temporal.embeddedRecycleAfter: read from the environment, checked at start-up, only ever applied in embedded mode. */
class EmbeddedRecycleConfigTest {
    private static final ObjectMapper MAPPER = Jackson.newObjectMapper();
    private static final Path CONFIG_YML = Path.of("..", "config.yml");

    @Test
    void shippedConfigRecyclesEmbeddedModeByDefaultAndTheEnvironmentChangesIt() throws Exception {
        assertThat(configYml(Map.of()).getTemporal().embeddedRecycleAfter())
                .isEqualTo(TemporalFactory.DEFAULT_EMBEDDED_RECYCLE_AFTER);
        assertThat(configYml(Map.of("TEMPORAL_EMBEDDED_RECYCLE_AFTER", "0"))
                        .getTemporal()
                        .embeddedRecycleAfter())
                .isZero();
        assertThat(configYml(Map.of("TEMPORAL_EMBEDDED_RECYCLE_AFTER", "20000"))
                        .getTemporal()
                        .embeddedRecycleAfter())
                .isEqualTo(20000);
    }

    @Test
    void negativeCountRefusesToStartNamingTheKey() {
        assertThatThrownBy(() -> configYml(Map.of("TEMPORAL_EMBEDDED_RECYCLE_AFTER", "-1")))
                .isInstanceOf(ConfigurationValidationException.class)
                .hasMessageContaining("temporal.embeddedRecycleAfter must be greater than or equal to 0");
    }

    @Test
    void notANumberRefusesToStart() {
        assertThatThrownBy(() -> configYml(Map.of("TEMPORAL_EMBEDDED_RECYCLE_AFTER", "often")))
                .hasMessageContaining("embeddedRecycleAfter");
    }

    @Test
    void anExternalServerIsNeverRecycled() throws Exception {
        RelayboxConfiguration production = configYml(
                Map.of("TEMPORAL_ADDRESS", "temporal.example:7233", "TEMPORAL_EMBEDDED_RECYCLE_AFTER", "100"));
        assertThat(production.getTemporal().isEmbedded()).isFalse();
        assertThat(production.getTemporal().embeddedRecycleAfter()).isZero();
    }

    private static RelayboxConfiguration configYml(Map<String, String> environment) throws Exception {
        return new YamlConfigurationFactory<>(RelayboxConfiguration.class, Validators.newValidator(), MAPPER, "dw")
                .build(
                        new SubstitutingSourceProvider(
                                new FileConfigurationSourceProvider(), new StringSubstitutor(environment)),
                        CONFIG_YML.toString());
    }
}
