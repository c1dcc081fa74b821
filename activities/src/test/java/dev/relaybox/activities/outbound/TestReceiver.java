package dev.relaybox.activities.outbound;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The tests' webhook receiver: a real HTTP server on a loopback port. What it answers is configured per path or by
 * a function of the request: a script of replies per path (the last one repeats), else {@link #answer} (200 when
 * unset), each after its delay. Paths under a {@link #trickle} prefix get 200 headers at once and then one body
 * byte at a time for as long as the caller stays; paths under a {@link #silence} prefix are read and never
 * answered. It keeps every answered request, and measures what a sender does to it: requests per path, the most
 * in flight at once, the most within any second, the requests it holds right now.
 */
public final class TestReceiver implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** An answer: its status, headers and body, sent after {@code delay} (the receiver's own latency). */
    public record Reply(int status, Map<String, String> headers, String body, Duration delay) {
        public static Reply of(int status) {
            return new Reply(status, Map.of(), "", Duration.ZERO);
        }

        public static Reply retryAfter(int status, String retryAfter) {
            return new Reply(status, Map.of("Retry-After", retryAfter), "", Duration.ZERO);
        }

        public Reply after(Duration delay) {
            return new Reply(status, headers, body, delay);
        }
    }

    /** One request, with the status it was answered (0 while unanswered). Header names are lower case. */
    public record Received(String path, Map<String, String> headers, byte[] body, int status) {
        public String header(String name) {
            return headers.get(name.toLowerCase());
        }

        public String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        public JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final CountDownLatch closed = new CountDownLatch(1);
    private final Map<String, Deque<Reply>> scripts = new ConcurrentHashMap<>();
    private final Map<String, Duration> trickles = new ConcurrentHashMap<>();
    private final List<String> silences = new CopyOnWriteArrayList<>();
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final Map<String, Integer> requestsByPath = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Long> arrivals = new ConcurrentLinkedQueue<>();
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger maxInFlight = new AtomicInteger();
    private final AtomicInteger holding = new AtomicInteger();
    private volatile Function<Received, Reply> answer = request -> Reply.of(200);
    private volatile Duration latency = Duration.ZERO;

    public TestReceiver() {
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

    /** {@code path} answers these replies in turn, the last one for good. */
    public TestReceiver script(String path, Reply... replies) {
        scripts.put(path, new ArrayDeque<>(List.of(replies)));
        return this;
    }

    /** Paths without a script answer what this function gives for the request. */
    public TestReceiver answer(Function<Received, Reply> answer) {
        this.answer = answer;
        return this;
    }

    /** Paths without a script answer the status this function gives for the request's JSON body. */
    public TestReceiver respond(Function<JsonNode, Integer> status) {
        return answer(request -> Reply.of(status.apply(request.json())));
    }

    /** Every answer comes this much later. */
    public TestReceiver latency(Duration latency) {
        this.latency = latency;
        return this;
    }

    /** Paths starting with {@code prefix} send 200 headers, then a body byte every {@code every}, never ending. */
    public TestReceiver trickle(String prefix, Duration every) {
        trickles.put(prefix, every);
        return this;
    }

    /** Paths starting with {@code prefix} take the request and never answer. */
    public TestReceiver silence(String prefix) {
        silences.add(prefix);
        return this;
    }

    /** Every answered request. */
    public List<Received> received() {
        return new ArrayList<>(received);
    }

    public List<Received> received(String path) {
        return received.stream().filter(r -> r.path().equals(path)).toList();
    }

    /** Requests taken so far, answered or not. */
    public int requests() {
        return requests.get();
    }

    /** How many requests each path took. */
    public Map<String, Integer> requestsByPath() {
        return Map.copyOf(requestsByPath);
    }

    public int maxInFlight() {
        return maxInFlight.get();
    }

    /** Requests whose connection is still open with the answer unfinished (trickling or silent). */
    public int holding() {
        return holding.get();
    }

    /** Arrival times in milliseconds after the first request, for reports. */
    public List<Long> arrivalOffsetsMillis() {
        List<Long> times = sortedArrivals();
        return times.stream().map(t -> (t - times.get(0)) / 1_000_000).toList();
    }

    /** The most requests that arrived within any window of one second. */
    public int maxPerSecond() {
        List<Long> times = sortedArrivals();
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

    private List<Long> sortedArrivals() {
        List<Long> times = new ArrayList<>(arrivals);
        Collections.sort(times);
        return times;
    }

    private void handle(HttpExchange exchange) throws IOException {
        arrivals.add(System.nanoTime());
        requests.incrementAndGet();
        String path = exchange.getRequestURI().getPath();
        requestsByPath.merge(path, 1, Integer::sum);
        maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
        try (exchange) {
            Map<String, String> headers = new ConcurrentHashMap<>();
            exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(), String.join(",", v)));
            Received request =
                    new Received(path, headers, exchange.getRequestBody().readAllBytes(), 0);
            if (silences.stream().anyMatch(path::startsWith)) {
                hold(() -> closed.await());
                return;
            }
            Duration every = trickles.entrySet().stream()
                    .filter(t -> path.startsWith(t.getKey()))
                    .map(Map.Entry::getValue)
                    .findFirst()
                    .orElse(null);
            if (every != null) {
                exchange.sendResponseHeaders(200, 0);
                OutputStream body = exchange.getResponseBody();
                hold(() -> {
                    while (!closed.await(every.toMillis(), TimeUnit.MILLISECONDS)) {
                        body.write('.');
                        body.flush(); // fails once the caller has hung up, which ends the loop
                    }
                });
                return;
            }
            Reply reply = next(request);
            Duration delay = latency.plus(reply.delay());
            if (!delay.isZero()) {
                Thread.sleep(delay.toMillis());
            }
            received.add(new Received(path, headers, request.body(), reply.status()));
            reply.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
            byte[] body = reply.body().getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(reply.status(), body.length == 0 ? -1 : body.length);
            if (body.length > 0) {
                exchange.getResponseBody().write(body);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            inFlight.decrementAndGet();
        }
    }

    private interface Holding {
        void run() throws IOException, InterruptedException;
    }

    private void hold(Holding holding) throws InterruptedException {
        this.holding.incrementAndGet();
        try {
            holding.run();
        } catch (IOException callerHungUp) {
            // the caller gave up: exactly what it should do
        } finally {
            this.holding.decrementAndGet();
        }
    }

    private Reply next(Received request) {
        synchronized (scripts) {
            Deque<Reply> script = scripts.get(request.path());
            if (script != null && !script.isEmpty()) {
                return script.size() == 1 ? script.peek() : script.poll();
            }
        }
        return answer.apply(request);
    }

    @Override
    public void close() {
        closed.countDown();
        server.stop(0);
        threads.shutdownNow();
    }
}
