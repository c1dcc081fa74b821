package dev.relaybox.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The webhook receiver every outbound scenario delivers to: a JDK HttpServer on loopback that answers at once
 * (200, or 503 while "down") and keeps, per path, the first arrival time of each {@code webhook-id}. Its own
 * count of distinct ids is what "lost = 0" is checked against.
 */
final class Receiver implements AutoCloseable {
    /** What one path has seen since it was last reset. */
    static final class Tally {
        final Map<String, Long> firstArrival = new ConcurrentHashMap<>();
        final AtomicInteger ok = new AtomicInteger();
        final AtomicInteger refused = new AtomicInteger();
        final AtomicInteger duplicates = new AtomicInteger();
        volatile int status = 200;

        int distinct() {
            return firstArrival.size();
        }
    }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(8, r -> {
        Thread t = new Thread(r, "bench-receiver");
        t.setDaemon(true);
        return t;
    });
    private final Map<String, Tally> tallies = new ConcurrentHashMap<>();

    Receiver() {
        // Without it the JDK server leaves Nagle on, and small answers can wait for a delayed ACK (about 40 ms).
        System.setProperty("sun.net.httpserver.nodelay", "true");
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1024);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    /** Forgets what the path saw and answers with {@code status} from now on. */
    Tally reset(String path, int status) {
        Tally tally = new Tally();
        tally.status = status;
        tallies.put(path, tally);
        return tally;
    }

    Tally tally(String path) {
        return tallies.computeIfAbsent(path, p -> new Tally());
    }

    private void handle(HttpExchange exchange) throws IOException {
        long now = System.nanoTime();
        try (exchange) {
            exchange.getRequestBody().readAllBytes();
            Tally tally = tally(exchange.getRequestURI().getPath());
            int status = tally.status;
            String id = exchange.getRequestHeaders().getFirst("webhook-id");
            if (status / 100 == 2 && id != null) {
                tally.ok.incrementAndGet();
                if (tally.firstArrival.putIfAbsent(id, now) != null) {
                    tally.duplicates.incrementAndGet();
                }
            } else {
                tally.refused.incrementAndGet();
            }
            exchange.sendResponseHeaders(status, -1);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
