package dev.relaybox.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.relaybox.activities.signing.Hmac;
import io.dropwizard.core.cli.Command;
import io.dropwizard.core.setup.Bootstrap;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/**
 * {@code relaybox receive --port 9000 --secret whsec_...}: a throwaway webhook receiver for trying Relaybox
 * out. Prints every request with its event type, checks its Standard Webhooks signature, and answers with
 * {@code --status} (503 to watch retries and dead letters happen).
 */
final class ReceiveCommand extends Command {
    private static final ObjectMapper JSON = new ObjectMapper();

    ReceiveCommand() {
        super("receive", "Run a local webhook receiver that prints and verifies what Relaybox sends");
    }

    @Override
    public void configure(Subparser subparser) {
        subparser.addArgument("--port").type(Integer.class).setDefault(9000).help("port to listen on (127.0.0.1)");
        subparser.addArgument("--secret").help("the endpoint's whsec_ secret, to verify signatures");
        subparser.addArgument("--status").type(Integer.class).setDefault(200).help("status code to answer with");
    }

    @Override
    public void run(Bootstrap<?> bootstrap, Namespace namespace) throws Exception {
        int port = namespace.getInt("port");
        String secret = namespace.getString("secret");
        int status = namespace.getInt("status");
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
        server.createContext("/", exchange -> {
            try (exchange) {
                byte[] body = exchange.getRequestBody().readAllBytes();
                String id = exchange.getRequestHeaders().getFirst("webhook-id");
                String timestamp = exchange.getRequestHeaders().getFirst("webhook-timestamp");
                String signature = exchange.getRequestHeaders().getFirst("webhook-signature");
                System.out.printf(
                        "%s %s %s webhook-id=%s %s signature=%s answering %d%n  %s%n",
                        Instant.now(),
                        exchange.getRequestMethod(),
                        exchange.getRequestURI(),
                        id,
                        describe(body),
                        verdict(secret, id, timestamp, body, signature),
                        status,
                        new String(body, StandardCharsets.UTF_8));
                exchange.sendResponseHeaders(status, -1);
            }
        });
        server.start();
        System.out.printf("receiving on http://127.0.0.1:%d/ (answering %d); Ctrl-C to stop%n", port, status);
        new CountDownLatch(1).await();
    }

    /**
     * The event type and time from the Standard Webhooks envelope ({"type", "timestamp", "data"}) Relaybox
     * sends by default; an endpoint with {@code payloadFormat: raw} gets the bare payload instead.
     */
    static String describe(byte[] body) {
        try {
            JsonNode json = JSON.readTree(body);
            if (json != null && json.hasNonNull("type") && json.hasNonNull("timestamp") && json.has("data")) {
                return "type=" + json.get("type").asText() + " timestamp="
                        + json.get("timestamp").asText();
            }
        } catch (IOException notJson) {
            return "body is not JSON";
        }
        return "raw payload (no envelope)";
    }

    private static String verdict(String secret, String id, String timestamp, byte[] body, String header) {
        if (secret == null) {
            return "unchecked (no --secret)";
        }
        if (id == null || timestamp == null || header == null) {
            return "MISSING HEADERS";
        }
        String problem = Hmac.secretProblem(secret);
        if (problem != null) {
            return "UNCHECKED (--secret " + problem + ")";
        }
        if (Hmac.standardWebhooksSigner(List.of(Hmac.secretKey(secret)), id, timestamp, body, header) > 0) {
            return "valid";
        }
        return "INVALID";
    }
}
