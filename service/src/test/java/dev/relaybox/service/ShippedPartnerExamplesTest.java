package dev.relaybox.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.relaybox.activities.inbound.SignatureScheme;
import dev.relaybox.service.config.PartnerFactory;
import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The partner examples people copy (README, docs/configuration.md and config.yml) bind to the configuration, pass the start-up checks and,
 * for schemes that sign only the body, take what decides processing (event type, aggregate id) from the signed body,
 * not a header.
 */
class ShippedPartnerExamplesTest {
    private static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    private static final Set<SignatureScheme> BODY_ONLY = Set.of(SignatureScheme.GITHUB, SignatureScheme.HMAC_SHA256);
    private static final Pattern YAML_BLOCK = Pattern.compile("(?s)```yaml\\n(.*?)```");
    private static final ObjectMapper YAML =
            new ObjectMapper(new YAMLFactory()).disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    @Test
    void bodyOnlySchemesTakeTheEventTypeAndAggregateFromTheSignedBody() throws IOException {
        List<JsonNode> partnerBlocks = new ArrayList<>();
        for (String doc : List.of("README.md", "docs/configuration.md")) {
            Matcher blocks = YAML_BLOCK.matcher(Files.readString(REPO.resolve(doc)));
            while (blocks.find()) {
                JsonNode block = YAML.readTree(blocks.group(1));
                if (block != null && block.has("partners")) {
                    partnerBlocks.add(block.get("partners"));
                }
            }
        }
        // As the application reads it: ${NAME:-default} taken as its default.
        String config = new EnvironmentVariableSubstitutor(false).replace(Files.readString(REPO.resolve("config.yml")));
        partnerBlocks.add(YAML.readTree(config).get("partners"));

        List<String> checked = new ArrayList<>();
        for (JsonNode partners : partnerBlocks) {
            for (Map.Entry<String, JsonNode> entry : partners.properties()) {
                PartnerFactory partner = YAML.treeToValue(entry.getValue(), PartnerFactory.class);
                // Start-up refuses what problem() names, an event id from a header the scheme does not sign among it.
                assertThat(partner.problem(entry.getKey())).as(entry.getKey()).isNull();
                if (BODY_ONLY.contains(partner.getSignature().scheme())) {
                    assertThat(partner.getEventType().pointer())
                            .as(entry.getKey() + " eventType")
                            .isNotBlank();
                    assertThat(partner.getAggregateId().pointer())
                            .as(entry.getKey() + " aggregateId")
                            .isNotBlank();
                    checked.add(entry.getKey());
                }
            }
        }
        assertThat(checked).as("examples with a body-only scheme").isNotEmpty();
    }
}
