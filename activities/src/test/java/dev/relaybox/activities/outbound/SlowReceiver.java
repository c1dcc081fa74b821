package dev.relaybox.activities.outbound;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real receiver on a loopback port that never finishes an answer. Under {@code /trickle/} it sends
 * {@code 200} headers at once and then one body byte every {@code trickleEvery} for as long as the caller
 * keeps the connection; under {@code /silent/} it reads the request and never answers at all. Counts the
 * requests it holds right now.
 */
public final class SlowReceiver implements AutoCloseable {
    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final CountDownLatch closed = new CountDownLatch(1);
    private final AtomicInteger received = new AtomicInteger();
    private final AtomicInteger holding = new AtomicInteger();
    private final long trickleMillis;

    public SlowReceiver(long trickleEveryMillis) {
        this.trickleMillis = trickleEveryMillis;
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 200);
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

    /** Requests taken so far. */
    public int received() {
        return received.get();
    }

    /** Requests whose connection is still open, answer unfinished. */
    public int holding() {
        return holding.get();
    }

    private void handle(HttpExchange exchange) throws IOException {
        received.incrementAndGet();
        holding.incrementAndGet();
        try (exchange) {
            exchange.getRequestBody().readAllBytes();
            if (exchange.getRequestURI().getPath().startsWith("/silent/")) {
                closed.await();
                return;
            }
            exchange.sendResponseHeaders(200, 0);
            OutputStream body = exchange.getResponseBody();
            while (!closed.await(trickleMillis, TimeUnit.MILLISECONDS)) {
                body.write('.');
                body.flush(); // a write to a connection the caller dropped fails here, and the loop ends
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException callerHungUp) {
            // the caller gave up: exactly what it should do
        } finally {
            holding.decrementAndGet();
        }
    }

    @Override
    public void close() {
        closed.countDown();
        server.stop(0);
        threads.shutdownNow();
    }
}
