package dev.relaybox.service;

import io.dropwizard.configuration.FileConfigurationSourceProvider;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import java.nio.file.Path;
import java.util.Map;
import org.apache.commons.text.StringSubstitutor;

/** The repository's {@code config.yml}, read and validated as the service reads it, with the environment given. */
public final class ShippedConfig {
    public static final Path CONFIG_YML = Path.of("..", "config.yml");

    private ShippedConfig() {}

    public static RelayboxConfiguration read(Map<String, String> environment) throws Exception {
        return new YamlConfigurationFactory<>(
                        RelayboxConfiguration.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw")
                .build(
                        new SubstitutingSourceProvider(
                                new FileConfigurationSourceProvider(), new StringSubstitutor(environment)),
                        CONFIG_YML.toString());
    }
}
