package dev.relaybox.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.activities.FaultFigures;
import io.dropwizard.testing.DropwizardTestSupport;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * Embedded mode as users run it: PostgreSQL with durable settings, so what the inbox acknowledged survives the
 * database process dying at any moment.
 */
class EmbeddedDurabilityTest {
    private static final int CLIENTS = 8;
    private static final int ACKNOWLEDGED_BEFORE_KILL = 300;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void embeddedPostgresRunsWithFsyncSynchronousCommitAndFullPageWrites() throws Exception {
        DropwizardTestSupport<RelayboxConfiguration> app =
                TestApp.durableSupport(TestApp.freshDataDirectory(), TestApp.freePort());
        app.before();
        try {
            Jdbi db = jdbi(app);
            assertThat(setting(db, "fsync")).isEqualTo("on");
            assertThat(setting(db, "synchronous_commit")).isEqualTo("on");
            assertThat(setting(db, "full_page_writes")).isEqualTo("on");
        } finally {
            app.after();
        }
    }

    @Test
    void testSuitesMayOptOutOfDurability() throws Exception {
        DropwizardTestSupport<RelayboxConfiguration> app =
                TestApp.support(TestApp.freshDataDirectory(), TestApp.freePort());
        app.before();
        try {
            assertThat(setting(jdbi(app), "fsync")).isEqualTo("off");
            assertThat(setting(jdbi(app), "synchronous_commit")).isEqualTo("off");
        } finally {
            app.after();
        }
    }

    @Test
    void everyAcknowledgedWebhookIsStoredAfterPostgresIsKilled() throws Exception {
        Path data = TestApp.freshDataDirectory();
        int temporalPort = TestApp.freePort();
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();

        DropwizardTestSupport<RelayboxConfiguration> first = TestApp.durableSupport(data, temporalPort);
        first.before();
        try {
            ProcessHandle postmaster = postmaster(data);
            List<ProcessHandle> children = postmaster.descendants().toList();
            AtomicBoolean killed = new AtomicBoolean();
            AtomicInteger next = new AtomicInteger();
            ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
            for (int c = 0; c < CLIENTS; c++) {
                clients.submit(() -> {
                    while (!killed.get()) {
                        String eventId = "drill-" + next.incrementAndGet();
                        if (accepted(first.getLocalPort(), eventId)) {
                            acknowledged.add(eventId);
                        }
                    }
                    return null;
                });
            }
            // Kill in the middle of the burst: the last acknowledgements come moments before the database dies.
            await().atMost(Duration.ofSeconds(120)).until(() -> acknowledged.size() >= ACKNOWLEDGED_BEFORE_KILL);
            postmaster.destroyForcibly();
            killed.set(true);
            clients.shutdown();
            assertThat(clients.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
            // Its backends notice the postmaster is gone and exit; only then can a new one start on the directory.
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> !postmaster.isAlive() && children.stream().noneMatch(ProcessHandle::isAlive));
        } finally {
            first.after();
        }
        assertThat(acknowledged).hasSizeGreaterThanOrEqualTo(ACKNOWLEDGED_BEFORE_KILL);

        DropwizardTestSupport<RelayboxConfiguration> second = TestApp.durableSupport(data, temporalPort);
        second.before();
        try {
            List<String> storedRows = jdbi(second)
                    .withHandle(
                            h -> h.createQuery("SELECT partner_event_id FROM webhook_inbox WHERE partner_name = 'shop'")
                                    .mapTo(String.class)
                                    .list());
            Set<String> stored = new HashSet<>(storedRows);
            List<String> lost = new ArrayList<>(acknowledged);
            lost.removeAll(stored);
            assertThat(lost)
                    .as("acknowledged with 200 accepted but not stored after the crash")
                    .isEmpty();
            // Stored is what this drill promises; each row is stored once (the unique key), so a duplicate cannot hide.
            FaultFigures.count(
                            "PostgreSQL killed (kill -9 of the postmaster) under 8 intake clients, restarted",
                            getClass(),
                            acknowledged,
                            storedRows,
                            FaultFigures.deadLetters(jdbi(second)))
                    .print()
                    .assertTargets();
        } finally {
            second.after();
        }
    }

    /** Posts one signed order.created as partner "shop"; true when answered 200 accepted. */
    private boolean accepted(int port, String eventId) {
        String body = "{\"type\": \"order.created\", \"data\": {\"orderId\": \"" + eventId + "\"}}";
        long timestamp = Instant.now().getEpochSecond();
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/webhooks/shop"))
                .timeout(Duration.ofSeconds(30))
                .header("content-type", "application/json")
                .header("webhook-id", eventId)
                .header("webhook-timestamp", Long.toString(timestamp))
                .header("webhook-signature", ShopWebhooks.signature(eventId, timestamp, body))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 && response.body().contains("\"accepted\"");
        } catch (Exception e) {
            return false;
        }
    }

    /** The running server's process, from the first line of postmaster.pid in its data directory. */
    private static ProcessHandle postmaster(Path data) throws Exception {
        long pid = Long.parseLong(
                Files.readAllLines(data.resolve("postmaster.pid")).get(0).trim());
        return ProcessHandle.of(pid).orElseThrow();
    }

    private static String setting(Jdbi db, String name) {
        return db.withHandle(
                h -> h.createQuery("SHOW " + name).mapTo(String.class).one());
    }

    private static Jdbi jdbi(DropwizardTestSupport<RelayboxConfiguration> app) {
        return Jdbi.create(app.getConfiguration().getDatabase().getUrl(), "postgres", "");
    }
}
