package dev.relaybox.activities.outbound;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A real HTTP receiver that measures what a rate-limited, concurrency-limited sender does to it: the most
 * requests in flight at once, the most requests that arrived within any one second, and the requests per path. Each request's
 * answer comes from a function of its parsed body, after an optional delay (the receiver's own latency).
 */
public final class CountingReceiver implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;
    private final ExecutorService threads = Executors.newFixedThreadPool(64);
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger maxInFlight = new AtomicInteger();
    private final AtomicInteger requests = new AtomicInteger();
    private final Map<String, Integer> requestsByPath = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Long> arrivals = new ConcurrentLinkedQueue<>();
    private volatile Function<JsonNode, Integer> responder = body -> 200;
    private volatile Duration latency = Duration.ZERO;

    public CountingReceiver() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 256);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", this::handle);
        server.setExecutor(threads);
        server.start();
    }

    public String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    /** Answers each request with the status this function gives for its body (the parsed JSON). */
    public CountingReceiver respond(Function<JsonNode, Integer> responder) {
        this.responder = responder;
        return this;
    }

    public CountingReceiver latency(Duration latency) {
        this.latency = latency;
        return this;
    }

    public int requests() {
        return requests.get();
    }

    /** How many requests each path received. */
    public Map<String, Integer> requestsByPath() {
        return Map.copyOf(requestsByPath);
    }

    public int maxInFlight() {
        return maxInFlight.get();
    }

    /** Arrival times in milliseconds after the first request, for reports. */
    public List<Long> arrivalOffsetsMillis() {
        List<Long> times = new ArrayList<>(arrivals);
        Collections.sort(times);
        return times.stream().map(t -> (t - times.get(0)) / 1_000_000).toList();
    }

    /** The most requests that arrived within any window of one second. */
    public int maxPerSecond() {
        List<Long> times = new ArrayList<>(arrivals);
        Collections.sort(times);
        int best = 0;
        int start = 0;
        for (int end = 0; end < times.size(); end++) {
            while (times.get(end) - times.get(start) >= 1_000_000_000L) {
                start++;
            }
            best = Math.max(best, end - start + 1);
        }
        return best;
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            arrivals.add(System.nanoTime());
            requests.incrementAndGet();
            requestsByPath.merge(exchange.getRequestURI().getPath(), 1, Integer::sum);
            int now = inFlight.incrementAndGet();
            maxInFlight.accumulateAndGet(now, Math::max);
            try {
                JsonNode body = JSON.readTree(exchange.getRequestBody().readAllBytes());
                if (!latency.isZero()) {
                    Thread.sleep(latency.toMillis());
                }
                int status = responder.apply(body);
                exchange.sendResponseHeaders(status, -1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                inFlight.decrementAndGet();
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
