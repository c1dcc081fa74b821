package dev.relaybox.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.relaybox.activities.outbound.AddressPolicy;
import dev.relaybox.activities.outbound.EndpointHeaders;
import dev.relaybox.activities.outbound.EndpointUrlPolicy;
import dev.relaybox.activities.outbound.PayloadFilterSyntax;
import dev.relaybox.service.config.EndpointSeed;
import dev.relaybox.store.Endpoint;
import dev.relaybox.store.EndpointStore;
import dev.relaybox.store.TestDatabase;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/** Endpoints declared in config.yml take a payload filter and static headers, checked before anything is written. */
class ConfiguredEndpointsTest {
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    static final EndpointUrlPolicy URL_POLICY =
            new EndpointUrlPolicy(AddressPolicy.publicOnly(), host -> List.of(InetAddress.getByName("93.184.215.14")));
    final Jdbi jdbi = TestDatabase.fresh();

    @Test
    void aSeedsFilterAndHeadersAreStoredAndWhatItLeavesOutIsReset() throws IOException {
        seed("""
                name: billing
                url: https://billing.example.com/hooks
                secret: whsec_Z2l0aHViLWhhbmRsZXItc2VjcmV0LTAwMDAwMDAx
                eventTypes: ["invoice.*"]
                filter: {path: /amount, gte: 100}
                headers: {X-Api-Key: k-123}
                """);
        Endpoint seeded = endpoint("billing").orElseThrow();
        assertThat(PayloadFilterSyntax.readStored(seeded.payloadFilter())
                        .matches(PayloadFilterSyntax.data("{\"amount\": 120}")))
                .isTrue();
        assertThat(EndpointHeaders.read(seeded.headers())).isEqualTo(Map.of("X-Api-Key", "k-123"));

        seed("""
                name: billing
                url: https://billing.example.com/hooks
                secret: whsec_Z2l0aHViLWhhbmRsZXItc2VjcmV0LTAwMDAwMDAx
                eventTypes: ["invoice.*"]
                """);
        Endpoint reset = endpoint("billing").orElseThrow();
        assertThat(reset.payloadFilter()).isNull();
        assertThat(reset.headers()).isNull();
    }

    @Test
    void aBadFilterOrHeaderStopsStartUpWithTheEndpointsNameAndWritesNothing() {
        assertThatThrownBy(() -> seed("""
                        name: bad-filter
                        url: https://billing.example.com/hooks
                        secret: whsec_Z2l0aHViLWhhbmRsZXItc2VjcmV0LTAwMDAwMDAx
                        eventTypes: ["*"]
                        filter: {path: amount, gte: 100}
                        """))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("endpoint bad-filter in config")
                .hasMessageContaining("JSON Pointer");
        assertThatThrownBy(() -> seed("""
                        name: bad-header
                        url: https://billing.example.com/hooks
                        secret: whsec_Z2l0aHViLWhhbmRsZXItc2VjcmV0LTAwMDAwMDAx
                        eventTypes: ["*"]
                        headers: {webhook-signature: forged}
                        """))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("endpoint bad-header in config")
                .hasMessageContaining("Relaybox's own");
        assertThat(endpoint("bad-filter")).isEmpty();
        assertThat(endpoint("bad-header")).isEmpty();
    }

    private void seed(String yaml) throws IOException {
        ConfiguredEndpoints.seed(
                jdbi, List.of(YAML.readValue(yaml, EndpointSeed.class)), URL_POLICY, Duration.ofHours(1));
    }

    private Optional<Endpoint> endpoint(String name) {
        return jdbi.withExtension(EndpointStore.class, store -> store.idOf(name).flatMap(store::find));
    }
}
