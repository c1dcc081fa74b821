package dev.relaybox.service.tenants;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.activities.outbound.AddressPolicy;
import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.service.Api;
import dev.relaybox.service.Api.Answer;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.TestApp;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import jakarta.ws.rs.client.Entity;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A tenant reaches only what is its own. It does not inherit the operator's private networks: with loopback allowed to the operator (as the compose
 * "scaled" profile allows its own networks), a tenant's endpoint on loopback is refused through the portal and
 * through {@code /admin} on the tenant's behalf, and the refusal names neither list; the operator's endpoint on the
 * same address is accepted. It enables again only an endpoint it disabled itself, not one the operator (or the breaker,
 * or a 410) disabled.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class TenantsAreStrangersTest {
    static final TestReceiver RECEIVER = new TestReceiver();
    static final DropwizardAppExtension<RelayboxConfiguration> APP = TestApp.extension(
            TestApp.freePort(),
            ConfigOverride.config("delivery.allowedPrivateNetworks", "127.0.0.0/8,10.0.0.0/8"),
            ConfigOverride.config("delivery.tenantAllowedPrivateNetworks", "none"));
    static final Api API = new Api(APP);
    static String portalToken;

    @BeforeAll
    static void aTenantWithAPortalLink() {
        assertThat(API.admin("POST", "/admin/tenants", Map.of("key", "acme", "name", "Acme Inc."))
                        .status())
                .isEqualTo(201);
        portalToken =
                API.admin("POST", "/admin/tenants/acme/portal-access", Map.of()).text("token");
    }

    @AfterAll
    static void closeReceiver() {
        RECEIVER.close();
    }

    @Test
    void aTenantEndpointOnTheOperatorsNetworkIsRefusedWithoutNamingIt() {
        Answer throughPortal =
                portal("POST", "/portal/api/endpoints", Map.of("name", "internal", "url", RECEIVER.url("/internal")));
        Answer throughAdmin = API.admin(
                "POST",
                "/admin/endpoints",
                Map.of("name", "internal", "url", RECEIVER.url("/internal"), "tenant", "acme"));

        for (Answer refused : new Answer[] {throughPortal, throughAdmin}) {
            refused.assertError(422, "url_refused");
            assertThat(refused.text("reason"))
                    .contains("tenant endpoints reach public addresses only")
                    .doesNotContain("127.0.0.0/8", "10.0.0.0/8", AddressPolicy.SETTING);
        }
        int created = API.jdbi()
                .withHandle(h -> h.createQuery("SELECT count(*) FROM endpoints WHERE name = 'internal'")
                        .mapTo(Integer.class)
                        .one());
        assertThat(created).isZero();
    }

    @Test
    void theOperatorsEndpointOnTheSameAddressIsAccepted() {
        assertThat(API.admin("POST", "/admin/endpoints", Map.of("name", "own", "url", RECEIVER.url("/own")))
                        .status())
                .isEqualTo(201);
    }

    @Test
    void aTenantEnablesAgainOnlyWhatItDisabledItself() {
        String id = API.admin(
                        "POST",
                        "/admin/endpoints",
                        Map.of("name", "billing", "url", "https://93.184.215.14/billing", "tenant", "acme"))
                .text("id");

        assertThat(portal("PATCH", "/portal/api/endpoints/" + id, Map.of("enabled", false, "disabledReason", "later"))
                        .text("disabledReason"))
                .isEqualTo("disabled in the portal");
        assertThat(portal("PATCH", "/portal/api/endpoints/" + id, Map.of("enabled", true))
                        .body()
                        .path("enabled")
                        .asBoolean())
                .isTrue();

        API.admin("PATCH", "/admin/endpoints/" + id, Map.of("enabled", false, "disabledReason", "unpaid invoice"));
        Answer refused = portal("PATCH", "/portal/api/endpoints/" + id, Map.of("enabled", true));
        refused.assertError(409, "disabled_by_operator");
        assertThat(refused.text("reason")).contains("unpaid invoice");
        JsonNode endpoint = portal("GET", "/portal/api/endpoints/" + id, null).body();
        assertThat(endpoint.path("enabled").asBoolean()).isFalse();
        assertThat(endpoint.path("disabledReason").asText()).isEqualTo("unpaid invoice");
    }

    private static Answer portal(String method, String path, Object body) {
        var request = API.request(path, portalToken);
        return Answer.of(body == null ? request.method(method) : request.method(method, Entity.json(body)));
    }
}
