package dev.relaybox.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.activities.outbound.TestReceiver.Reply;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * GitHub's webhooks, verified and handed to the team's own handler through the running application: a partner with
 * no state machine, one route, one ordered endpoint seeded from the configuration, a real HTTP handler.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class InboundRoutesAppTest {
    static final String GITHUB_SECRET = "github-routes-test-secret";
    static final String REPO = "octo/hello";
    static final ObjectMapper JSON = new ObjectMapper();
    static final TestReceiver HANDLER = new TestReceiver();
    static final DropwizardAppExtension<RelayboxConfiguration> APP = new DropwizardAppExtension<>(
            RelayboxApplication.class,
            configWithGithubRoute(),
            TestApp.overrides(
                    TestApp.freshDataDirectory(),
                    TestApp.freePort(),
                    ConfigOverride.config("delivery.retryDelays", "1s"),
                    ConfigOverride.config("delivery.jitter", "0")));
    static final Api API = new Api(APP);

    @AfterAll
    static void closeHandler() {
        HANDLER.close();
    }

    @Test
    void githubEventsReachTheHandlerOnceEachInArrivalOrderThroughAnOutageAndAReplay() throws Exception {
        // The handler is down for the first attempt, then back: one retry, and the later events wait their turn.
        HANDLER.script("/github", Reply.of(503), Reply.of(200));
        for (String action : List.of("opened", "synchronize", "closed")) {
            assertThat(sendGithub("d-" + action, pullRequest(action)).getStatus())
                    .isEqualTo(200);
        }
        assertThat(sendGithub("d-opened", pullRequest("opened")).readEntity(String.class))
                .contains("duplicate");

        await().atMost(Duration.ofSeconds(60)).until(() -> accepted().size() == 3);
        assertThat(accepted())
                .extracting(r -> r.header("relaybox-partner-event-id"))
                .containsExactly("d-opened", "d-synchronize", "d-closed");
        assertThat(HANDLER.received("/github"))
                .extracting(r -> r.header("relaybox-partner"))
                .containsOnly("github");
        TestReceiver.Received first = HANDLER.received("/github").get(0);
        assertThat(first.status()).isEqualTo(503);
        assertThat(accepted().get(0).header("webhook-id")).isEqualTo(first.header("webhook-id"));
        JsonNode envelope = JSON.readTree(accepted().get(0).body());
        assertThat(envelope.path("data")).isEqualTo(JSON.readTree(pullRequest("opened")));
        assertThat(envelope.path("source").path("eventId").asText()).isEqualTo("d-opened");

        // Down through the whole schedule: a dead letter, and its replay once the handler is back delivers it.
        HANDLER.script("/github", Reply.of(503));
        sendGithub("d-reopened", pullRequest("reopened"));
        JsonNode deadLetter = await().atMost(Duration.ofSeconds(60))
                .until(
                        () -> API.adminGet("/admin/dead-letters?source=outbox&peer=github-handler")
                                .path("items"),
                        items -> items.size() == 1)
                .get(0);
        // Replaying while the workflow is still finishing races with its end: wait for the row to be done.
        await().atMost(Duration.ofSeconds(60))
                .until(() -> API.jdbi()
                                .withHandle(
                                        h -> h.createQuery("""
                                        SELECT count(*) FROM outbox_events
                                         WHERE source_event_id = 'd-reopened' AND status = 'PROCESSED'""").mapTo(int.class).one())
                        == 1);
        HANDLER.script("/github", Reply.of(200));
        assertThat(API.admin(
                                "POST",
                                "/admin/dead-letters/" + deadLetter.path("id").asText() + "/replay",
                                Map.of())
                        .status())
                .isEqualTo(200);

        await().atMost(Duration.ofSeconds(60)).until(() -> accepted().size() == 4);
        assertThat(accepted().get(3).header("relaybox-partner-event-id")).isEqualTo("d-reopened");
        assertThat(API.adminGet("/admin/inbox?partner=github").path("items").findValuesAsText("status"))
                .containsOnly("PROCESSED");
    }

    private static List<TestReceiver.Received> accepted() {
        return HANDLER.received("/github").stream()
                .filter(r -> r.status() == 200)
                .toList();
    }

    private static String pullRequest(String action) {
        return "{\"action\": \"" + action + "\", \"repository\": {\"full_name\": \"" + REPO + "\"}}";
    }

    private static Response sendGithub(String delivery, String body) {
        return APP.client()
                .target("http://localhost:" + APP.getLocalPort() + "/webhooks/github")
                .request()
                .header("X-GitHub-Delivery", delivery)
                .header("X-Hub-Signature-256", "sha256=" + HexFormat.of().formatHex(hmac(body)))
                .post(Entity.entity(body, MediaType.APPLICATION_JSON));
    }

    private static byte[] hmac(String body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(GITHUB_SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return mac.doFinal(body.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The shipped config.yml with the handler seeded as an endpoint and a GitHub partner routed to it. */
    private static String configWithGithubRoute() {
        try {
            String shipped = Files.readString(Path.of(TestApp.CONFIG));
            String endpoints = """
                    endpoints:
                      - name: github-handler
                        url: %s
                        secret: whsec_Z2l0aHViLWhhbmRsZXItc2VjcmV0LTAwMDAwMDAx
                        eventTypes: ["nothing.else"]
                        ordered: true
                    """.formatted(HANDLER.url("/github"));
            String partner = """
                    partners:
                      github:
                        signature: {scheme: github, secrets: ["%s"]}
                        eventId: {header: X-GitHub-Delivery}
                        trustUnsignedEventIdHeader: true
                        eventType: {pointer: /action}
                        aggregateId: {pointer: /repository/full_name}
                        aggregateType: repository
                        routes:
                          - eventTypes: ["*"]
                            endpoints: [github-handler]
                    """.formatted(GITHUB_SECRET);
            assertThat(shipped).contains("\nendpoints: []\n", "\npartners:\n");
            String config =
                    shipped.replace("\nendpoints: []\n", "\n" + endpoints).replace("\npartners:\n", "\n" + partner);
            Path file = Files.createTempFile("relaybox-routes", ".yml");
            Files.writeString(file, config);
            return file.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
