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
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A tenant reaches only what is its own. It does not inherit the operator's private networks: with loopback allowed to the operator (as the compose
 * "scaled" profile allows its own networks), a tenant's endpoint on loopback is refused through the portal and
 * through {@code /admin} on the tenant's behalf, and the refusal names neither list; the operator's endpoint on the
 * same address is accepted. It has a bounded number of endpoints and test events a minute. It enables again only an endpoint it disabled itself, not one the operator (or the breaker,
 * or a 410) disabled.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class TenantsAreStrangersTest {
    static final int ENDPOINT_QUOTA = 4;
    static final TestReceiver RECEIVER = new TestReceiver();
    static final DropwizardAppExtension<RelayboxConfiguration> APP = TestApp.extension(
            ConfigOverride.config("delivery.allowedPrivateNetworks", "127.0.0.0/8,10.0.0.0/8"),
            ConfigOverride.config("delivery.tenantAllowedPrivateNetworks", "none"),
            ConfigOverride.config("portal.quotas.endpoints", Integer.toString(ENDPOINT_QUOTA)),
            ConfigOverride.config("portal.quotas.testsPerMinute", "1"));
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

    @Test
    void aTenantHasBoundedEndpointsAndTestEvents() throws Exception {
        // A tenant of its own, so that filling its quota leaves the other tests' tenant alone.
        API.admin("POST", "/admin/tenants", Map.of("key", "globex", "name", "Globex"));
        String token = API.admin("POST", "/admin/tenants/globex/portal-access", Map.of())
                .text("token");
        Answer answer = null;
        for (int i = 0; i <= ENDPOINT_QUOTA; i++) {
            answer = portal(
                    token,
                    "POST",
                    "/portal/api/endpoints",
                    Map.of("name", "quota-" + i, "url", "https://93.184.215.14/" + i));
            if (answer.status() != 201) {
                break;
            }
        }
        answer.assertError(409, "quota_exceeded");
        int endpoints = API.jdbi()
                .withHandle(h -> h.createQuery("SELECT count(*) FROM endpoints WHERE tenant = 'globex'")
                        .mapTo(Integer.class)
                        .one());
        assertThat(endpoints).isEqualTo(ENDPOINT_QUOTA);

        // Disabled, so the test events wait paused and nothing leaves this machine.
        String id = API.jdbi()
                .withHandle(h -> h.createQuery(
                                "SELECT id::text FROM endpoints WHERE tenant = 'globex' AND name = 'quota-0'")
                        .mapTo(String.class)
                        .one());
        portal(token, "PATCH", "/portal/api/endpoints/" + id, Map.of("enabled", false));
        // One a minute: the second within the minute is refused (a third, should the minute have turned between).
        // A plain client: the API client's own would wait out the Retry-After and ask again.
        assertThat(testEvent(token, id).statusCode()).isEqualTo(202);
        HttpResponse<String> refused = testEvent(token, id);
        if (refused.statusCode() == 202) {
            refused = testEvent(token, id);
        }
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow()))
                .isBetween(1L, 60L);
        assertThat(refused.body()).contains("quota_exceeded", "at most 1 test events a minute");
    }

    private static HttpResponse<String> testEvent(String token, String endpointId) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(API.url("/portal/api/endpoints/" + endpointId + "/test")))
                                .header("Authorization", "Bearer " + token)
                                .POST(HttpRequest.BodyPublishers.noBody())
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    private static Answer portal(String method, String path, Object body) {
        return portal(portalToken, method, path, body);
    }

    private static Answer portal(String token, String method, String path, Object body) {
        var request = API.request(path, token);
        return Answer.of(body == null ? request.method(method) : request.method(method, Entity.json(body)));
    }
}
