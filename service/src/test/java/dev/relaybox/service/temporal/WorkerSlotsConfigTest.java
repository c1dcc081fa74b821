package dev.relaybox.service.temporal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relaybox.service.RelayboxConfiguration;
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

/** The worker's slot counts come from config.yml's environment variables and are refused below one. */
class WorkerSlotsConfigTest {
    private static final Path CONFIG_YML = Path.of("..", "config.yml");

    @Test
    void localActivitySlotsComeFromTheirVariable() throws Exception {
        RelayboxConfiguration config = configYml(Map.of("TEMPORAL_MAX_LOCAL_ACTIVITIES", "3"));

        assertThat(config.getTemporal().getMaxConcurrentLocalActivities()).isEqualTo(3);
    }

    @Test
    void zeroLocalActivitySlotsAreRefusedNamingTheKey() {
        assertThatThrownBy(() -> configYml(Map.of("TEMPORAL_MAX_LOCAL_ACTIVITIES", "0")))
                .isInstanceOf(ConfigurationValidationException.class)
                .hasMessageContaining("temporal.maxConcurrentLocalActivities must be greater than or equal to 1");
    }

    private static RelayboxConfiguration configYml(Map<String, String> environment) throws Exception {
        return new YamlConfigurationFactory<>(
                        RelayboxConfiguration.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw")
                .build(
                        new SubstitutingSourceProvider(
                                new FileConfigurationSourceProvider(), new StringSubstitutor(environment)),
                        CONFIG_YML.toString());
    }
}
