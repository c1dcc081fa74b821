package dev.relaybox.bench;

import dev.relaybox.activities.outbound.WebhookSigner;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * What users write without Relaybox (seed 004's "retry table"): a {@code webhook_requests}-style table, and threads
 * that claim due rows in batches with {@code FOR UPDATE SKIP LOCKED}, POST them (signed like Relaybox does), and
 * mark them COMPLETE, or PENDING_RETRY with the next attempt time, or FAILED once the schedule is spent. It keeps
 * no attempt log, no per-endpoint fan-out, no dead-letter table: it is the floor, not a competitor.
 */
final class Poller implements AutoCloseable {
    static final String TABLE = "bench_webhook_requests";
    private static final int BATCH = 100;
    private static final long IDLE_SLEEP_MS = 100;
    private static final String SECRET = "whsec_"
            + Base64.getEncoder().encodeToString("relaybox-bench-poller-secret-0001".getBytes(StandardCharsets.UTF_8));

    private final Jdbi jdbi;
    private final URI target;
    private final List<Duration> delays;
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stopped;

    Poller(Jdbi jdbi, String url, List<Duration> delays) {
        this.jdbi = jdbi;
        this.target = URI.create(url);
        this.delays = List.copyOf(delays);
    }

    static void createTable(Jdbi jdbi) {
        jdbi.useHandle(h -> {
            h.execute("""
                    CREATE TABLE IF NOT EXISTS %s (
                        id                   uuid        PRIMARY KEY,
                        payload              text        NOT NULL,
                        status               varchar(20) NOT NULL DEFAULT 'NOT_CALLED',
                        last_retry_timestamp timestamptz,
                        retry_count          integer     NOT NULL DEFAULT 0,
                        next_attempt_at      timestamptz NOT NULL DEFAULT now(),
                        created_at           timestamptz NOT NULL DEFAULT now(),
                        updated_at           timestamptz NOT NULL DEFAULT now())""".formatted(TABLE));
            h.execute("CREATE INDEX IF NOT EXISTS " + TABLE + "_due ON " + TABLE
                    + " (next_attempt_at) WHERE status IN ('NOT_CALLED', 'PENDING_RETRY')");
        });
    }

    /** One row per transaction, as a producer writing it beside its business change would. */
    static void enqueue(Handle handle, UUID id, String payload) {
        handle.createUpdate("INSERT INTO " + TABLE + " (id, payload) VALUES (:id, :payload)")
                .bind("id", id)
                .bind("payload", payload)
                .execute();
    }

    void start(int count) {
        for (int i = 0; i < count; i++) {
            Thread t = new Thread(this::loop, "bench-poller-" + i);
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }
    }

    private void loop() {
        while (!stopped) {
            try {
                if (pollOnce() == 0) {
                    Thread.sleep(IDLE_SLEEP_MS);
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                if (!stopped) {
                    System.err.println("poller: " + e);
                }
            }
        }
    }

    record Due(UUID id, String payload, int retryCount) {}

    /** Claims a batch, sends it while holding the row locks, records the outcome; returns how many it sent. */
    int pollOnce() {
        return jdbi.inTransaction(h -> {
            List<Due> due = h.createQuery("""
                            SELECT id, payload, retry_count FROM %s
                             WHERE status IN ('NOT_CALLED', 'PENDING_RETRY') AND next_attempt_at <= now()
                             ORDER BY next_attempt_at
                             LIMIT :batch
                               FOR UPDATE SKIP LOCKED""".formatted(TABLE))
                    .bind("batch", BATCH)
                    .map((rs, ctx) ->
                            new Due(rs.getObject("id", UUID.class), rs.getString("payload"), rs.getInt("retry_count")))
                    .list();
            List<UUID> complete = new ArrayList<>();
            for (Due row : due) {
                if (send(row)) {
                    complete.add(row.id());
                } else {
                    int retries = row.retryCount() + 1;
                    boolean spent = retries > delays.size();
                    h.createUpdate("""
                                    UPDATE %s SET status = :status, retry_count = :retries, last_retry_timestamp = now(),
                                           next_attempt_at = now() + make_interval(secs => :wait), updated_at = now()
                                     WHERE id = :id""".formatted(TABLE))
                            .bind("status", spent ? "FAILED" : "PENDING_RETRY")
                            .bind("retries", retries)
                            .bind("wait", spent ? 0.0 : delays.get(retries - 1).toMillis() / 1000.0)
                            .bind("id", row.id())
                            .execute();
                }
            }
            if (!complete.isEmpty()) {
                h.createUpdate("UPDATE " + TABLE + " SET status = 'COMPLETE', updated_at = now() WHERE id = ANY(:ids)")
                        .bindArray("ids", UUID.class, complete)
                        .execute();
            }
            return due.size();
        });
    }

    private boolean send(Due row) {
        byte[] body = row.payload().getBytes(StandardCharsets.UTF_8);
        long timestamp = Instant.now().getEpochSecond();
        String id = row.id().toString();
        HttpRequest request = HttpRequest.newBuilder(target)
                .timeout(Duration.ofSeconds(15))
                .header("content-type", "application/json")
                .header("webhook-id", id)
                .header("webhook-timestamp", Long.toString(timestamp))
                .header("webhook-signature", WebhookSigner.signatureHeader(List.of(SECRET), id, timestamp, body))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
        try {
            int status =
                    http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
            return status >= 200 && status < 300;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    int count(String status) {
        return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM " + TABLE + " WHERE status = :s")
                .bind("s", status)
                .mapTo(int.class)
                .one());
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        for (Thread t : threads) {
            t.join(20_000);
        }
    }
}
