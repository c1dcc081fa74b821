package dev.relaybox.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.service.Api.Answer;
import dev.relaybox.service.config.AuthFactory;
import dev.relaybox.service.config.SecretsFactory;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.core.MediaType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The README's move from embedded mode to an external PostgreSQL: {@code relaybox db dump}, restore with psql into
 * another server, start Relaybox with the database URL; the open work it had (a delivery waiting to retry, an inbox
 * event deferred until its order is paid) completes there.
 */
class MoveToExternalDatabaseTest {
    private static final String MOVED_PARTNER_SECRET = "whsec_" + "bW92ZWQtcGFydG5lci1zZWNyZXQtZm9yLXRlc3Rz";
    private static final ConfigOverride[] LONG_WAITS = {
        // Long waits: only the restart on the new database can move the open work on within the test.
        ConfigOverride.config("delivery.retryDelays", "1h"), ConfigOverride.config("inbox.recheckInterval", "1h")
    };

    @Test
    void openWorkDumpedFromEmbeddedModeCompletesOnTheDatabaseItWasRestoredInto() throws Exception {
        requireTool("pg_dump");
        requireTool("psql");
        Path data = TestApp.freshDataDirectory();
        String order = "move-" + System.nanoTime();
        try (TestReceiver receiver = new TestReceiver()) {
            receiver.script("/moved", TestReceiver.Reply.of(503));
            String outboxId;
            String shippedId;
            DropwizardTestSupport<RelayboxConfiguration> embedded =
                    TestApp.support(data, TestApp.freePort(), LONG_WAITS);
            embedded.before();
            try {
                Api api = new Api(embedded);
                api.admin(
                        "POST",
                        "/admin/endpoints",
                        Map.of("name", "moved", "url", receiver.url("/moved"), "eventTypes", List.of("invoice.*")));
                outboxId = api.enqueue("invoice.sent", "invoice", "8", Map.of()).text("id");
                send(api, AuthFactory.DEV_PARTNER_SECRET, "evt-c-" + order, "order.created", order);
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> entityState(api.jdbi(), order).equals("created"));
                shippedId = send(api, AuthFactory.DEV_PARTNER_SECRET, "evt-s-" + order, "order.shipped", order)
                        .text("id");
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> "RETRYING".equals(deliveryStatus(api.jdbi()))
                                && "DEFERRED".equals(inboxStatus(api.jdbi(), shippedId)));

                // A backup may be taken while Relaybox runs: pg_dump reads one snapshot.
                Path live = Files.createTempFile("relaybox-live", ".sql");
                assertThat(dbDump(data, live)).contains("dumping the running embedded PostgreSQL", "wrote " + live);
                assertThat(Files.readString(live)).contains("CREATE TABLE public.webhook_inbox", "evt-s-" + order);
                assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(live)))
                        .isEqualTo("rw-------");
            } finally {
                embedded.after();
            }

            // 1. Stopped, so nothing changes after the dump; the dump starts PostgreSQL on the data directory itself.
            Path dump = Files.createTempFile("relaybox", ".sql");
            assertThat(dbDump(data, dump)).contains("started the embedded PostgreSQL", "wrote " + dump);

            try (EmbeddedPostgres external = EmbeddedPostgres.builder().start()) {
                // 2. Restore into an empty database of the new server.
                Jdbi.create(external.getPostgresDatabase()).useHandle(h -> h.execute("CREATE DATABASE relaybox"));
                run(List.of(
                        "psql",
                        "--host",
                        "localhost",
                        "--port",
                        Integer.toString(external.getPort()),
                        "--username",
                        "postgres",
                        "--dbname",
                        "relaybox",
                        "--quiet",
                        "-v",
                        "ON_ERROR_STOP=1",
                        "--file",
                        dump.toString()));

                // The rows carry the schedule across the move: let the hour of backoff pass, as a long move would.
                Jdbi.create(external.getDatabase("postgres", "relaybox"))
                        .useHandle(
                                h -> h.execute(
                                        "UPDATE deliveries SET next_attempt_at = now() - interval '1 hour' WHERE status = 'RETRYING'"));

                // 3. Relaybox on the restored database: the reconciler starts the open work that is due.
                receiver.script("/moved", TestReceiver.Reply.of(200));
                List<ConfigOverride> overrides = new ArrayList<>(List.of(LONG_WAITS));
                overrides.add(ConfigOverride.config("dispatcher.reconcileInterval", "1s"));
                overrides.add(ConfigOverride.config("dispatcher.reconcileGrace", "1s"));
                overrides.add(ConfigOverride.config("database.url", external.getJdbcUrl("postgres", "relaybox")));
                // An external database makes this production: its own tokens and partner secret, and the
                // test's receiver on loopback allowed explicitly.
                overrides.add(ConfigOverride.config("auth.adminTokens", "moved-admin-token-0123456789abcdef"));
                overrides.add(ConfigOverride.config("auth.producerTokens", "moved-producer-token-0123456789abcdef"));
                overrides.add(ConfigOverride.config("partners.shop.signature.secrets", MOVED_PARTNER_SECRET));
                overrides.add(ConfigOverride.config("delivery.allowedPrivateNetworks", "127.0.0.0/8"));
                // The endpoint's secret was sealed with the embedded data directory's key: it moves along.
                overrides.add(ConfigOverride.config(
                        "secrets.key", SecretsFactory.readEmbeddedKey(data).orElseThrow()));
                DropwizardTestSupport<RelayboxConfiguration> moved = TestApp.support(
                        TestApp.freshDataDirectory(), TestApp.freePort(), overrides.toArray(ConfigOverride[]::new));
                moved.before();
                try {
                    Api api = new Api(moved);
                    assertThat(moved.getConfiguration().getDatabase().getUrl())
                            .contains(":" + external.getPort() + "/");
                    await().atMost(Duration.ofSeconds(60)).until(() -> "DELIVERED".equals(deliveryStatus(api.jdbi())));
                    assertThat(receiver.received("/moved"))
                            .extracting(r -> r.header("webhook-id"))
                            .containsExactly(outboxId, outboxId);

                    send(api, MOVED_PARTNER_SECRET, "evt-p-" + order, "order.paid", order);
                    await().atMost(Duration.ofSeconds(60))
                            .until(() -> entityState(api.jdbi(), order).equals("shipped"));
                    assertThat(inboxStatus(api.jdbi(), shippedId)).isEqualTo("PROCESSED");
                } finally {
                    moved.after();
                }
            }
        }
    }

    /** {@code relaybox db dump --output FILE config.yml} in its own JVM, as an operator runs it; its output. */
    private static String dbDump(Path dataDirectory, Path output) throws Exception {
        return CommandLine.run(dataDirectory, Map.of(), "db", "dump", "--output", output.toString());
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue())
                .as("%s answered:%n%s", command.get(0), out)
                .isZero();
        return out;
    }

    /** The dump needs PostgreSQL's client tools, which .ci/run installs (Debian's postgresql-client). */
    private static void requireTool(String name) {
        boolean present = Files.isExecutable(Path.of("/usr/bin", name));
        if (!present && System.getenv("CI") != null) {
            throw new IllegalStateException("install postgresql-client for " + name);
        }
        Assumptions.assumeTrue(present, name + " is not installed; skipping the move to an external database");
    }

    private static String deliveryStatus(Jdbi db) {
        return db.withHandle(h -> h.createQuery("SELECT status FROM deliveries")
                .mapTo(String.class)
                .findOne()
                .orElse(null));
    }

    private static String inboxStatus(Jdbi db, String id) {
        return db.withHandle(h -> h.createQuery("SELECT status FROM webhook_inbox WHERE id = CAST(:id AS uuid)")
                .bind("id", id)
                .mapTo(String.class)
                .one());
    }

    private static String entityState(Jdbi db, String order) {
        return db.withHandle(
                h -> h.createQuery("SELECT state FROM entities WHERE aggregate_type = 'order' AND aggregate_id = :id")
                        .bind("id", order)
                        .mapTo(String.class)
                        .findOne()
                        .orElse(""));
    }

    private static Answer send(Api api, String secret, String eventId, String type, String orderId) {
        String body = "{\"type\": \"" + type + "\", \"data\": {\"orderId\": \"" + orderId + "\"}}";
        long timestamp = Instant.now().getEpochSecond();
        Answer answer = Answer.of(api.request("/webhooks/shop", null)
                .header("webhook-id", eventId)
                .header("webhook-timestamp", Long.toString(timestamp))
                .header("webhook-signature", ShopWebhooks.signature(secret, eventId, timestamp, body))
                .post(Entity.entity(body, MediaType.APPLICATION_JSON)));
        assertThat(answer.status()).isEqualTo(200);
        return answer;
    }
}
