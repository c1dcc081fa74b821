package dev.relaybox.activities.outbound;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A real HTTP receiver on a loopback port. Each path answers from its own script of responses (the last
 * one repeats; 200 when none is scripted) and every request is kept for assertions.
 */
public final class TestReceiver implements AutoCloseable {
    public record Reply(int status, Map<String, String> headers, String body) {
        public static Reply of(int status) {
            return new Reply(status, Map.of(), "");
        }

        public static Reply retryAfter(int status, String retryAfter) {
            return new Reply(status, Map.of("Retry-After", retryAfter), "");
        }
    }

    /** One request, with the status it was answered. */
    public record Received(String path, Map<String, String> headers, byte[] body, int status) {
        public String header(String name) {
            return headers.get(name.toLowerCase());
        }
    }

    private final HttpServer server;
    private final Map<String, Deque<Reply>> scripts = new ConcurrentHashMap<>();
    private final List<Received> received = new CopyOnWriteArrayList<>();

    public TestReceiver() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", this::handle);
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.start();
    }

    public String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    public void script(String path, Reply... replies) {
        scripts.put(path, new ArrayDeque<>(List.of(replies)));
    }

    public List<Received> received(String path) {
        return received.stream().filter(r -> r.path().equals(path)).toList();
    }

    public List<Received> received() {
        return new ArrayList<>(received);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            Map<String, String> headers = new ConcurrentHashMap<>();
            exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(), String.join(",", v)));
            String path = exchange.getRequestURI().getPath();
            byte[] requestBody = exchange.getRequestBody().readAllBytes();
            Reply reply = next(path);
            received.add(new Received(path, headers, requestBody, reply.status()));
            reply.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
            byte[] body = reply.body().getBytes();
            exchange.sendResponseHeaders(reply.status(), body.length == 0 ? -1 : body.length);
            if (body.length > 0) {
                exchange.getResponseBody().write(body);
            }
        }
    }

    private synchronized Reply next(String path) {
        Deque<Reply> script = scripts.get(path);
        if (script == null || script.isEmpty()) {
            return Reply.of(200);
        }
        return script.size() == 1 ? script.peek() : script.poll();
    }

    @Override
    public void close() {
        server.stop(0);
        ((ExecutorService) server.getExecutor()).shutdownNow();
    }
}
