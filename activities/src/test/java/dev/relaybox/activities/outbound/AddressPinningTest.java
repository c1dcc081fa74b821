package dev.relaybox.activities.outbound;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.relaybox.workflows.outbound.AttemptResult.Outcome;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The address check at send time, against real receivers on loopback. DNS rebinding: the host's first answer is
 * checked, a second lookup would answer something else. Both answers are loopback addresses on this machine
 * (127.0.0.2 and 127.0.0.1, same port), so whichever the client connects to, no traffic leaves it.
 */
class AddressPinningTest {
    final List<HttpServer> servers = new ArrayList<>();
    final List<String> reachedAt = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        servers.forEach(server -> server.stop(0));
    }

    @Test
    void connectsToTheAddressThatWasCheckedNotToASecondLookup() throws Exception {
        int port = listenOnTwoLoopbackAddresses();
        AtomicInteger lookups = new AtomicInteger();
        HostResolver rebinding =
                host -> List.of(InetAddress.getByName(lookups.incrementAndGet() == 1 ? "127.0.0.2" : "127.0.0.1"));
        EndpointUrlPolicy policy = new EndpointUrlPolicy(AddressPolicy.allowing("127.0.0.0/8"), rebinding);
        WebhookSender sender = new WebhookSender(DeliverySettings.defaults(), policy);

        WebhookSender.Sent sent = sender.send(
                "http://localhost:" + port + "/hooks",
                "msg_1",
                "{}".getBytes(StandardCharsets.UTF_8),
                List.of(WebhookSigner.newSecret()),
                Instant.now());

        assertThat(sent.result().outcome()).isEqualTo(Outcome.DELIVERED);
        assertThat(reachedAt).containsExactly("127.0.0.2");
        assertThat(sent.responseExcerpt()).isEqualTo("checked");
    }

    @Test
    void cloudMetadataAddressIsRefusedEvenWhenItsNetworkIsAllowed() {
        HostResolver metadata = host -> List.of(InetAddress.getByName("169.254.169.254"));
        WebhookSender sender = new WebhookSender(
                DeliverySettings.defaults(),
                new EndpointUrlPolicy(AddressPolicy.allowing("169.254.0.0/16,0.0.0.0/0"), metadata));

        // "localhost": were the name ever looked up by the system, /etc/hosts answers; no query leaves.
        WebhookSender.Sent sent = sender.send(
                "http://localhost:1/latest/meta-data/",
                "msg_1",
                "{}".getBytes(StandardCharsets.UTF_8),
                List.of(WebhookSigner.newSecret()),
                Instant.now());

        assertThat(sent.result().outcome()).isEqualTo(Outcome.PERMANENT);
        assertThat(sent.error()).contains("169.254.169.254", "metadata");
    }

    @Test
    void aLoopbackReceiverIsReachedOnlyWhenLoopbackIsListed() throws Exception {
        int port = server("127.0.0.1", 0, "local").getAddress().getPort();
        String url = "http://127.0.0.1:" + port + "/hooks";

        WebhookSender.Sent refused = send(AddressPolicy.allowing("10.0.0.0/8"), HostResolver.SYSTEM, url);
        WebhookSender.Sent delivered = send(AddressPolicy.allowing("10.0.0.0/8,127.0.0.0/8"), HostResolver.SYSTEM, url);

        assertThat(refused.result().outcome()).isEqualTo(Outcome.PERMANENT);
        assertThat(refused.error()).contains("127.0.0.1", "loopback", "ALLOWED_PRIVATE_NETWORKS");
        assertThat(delivered.result().outcome()).isEqualTo(Outcome.DELIVERED);
        assertThat(reachedAt).containsExactly("127.0.0.1");
    }

    @Test
    void relayboxsOwnPortIsRefusedAtSendTimeEvenWhenLoopbackIsListed() throws Exception {
        int port = server("127.0.0.1", 0, "thread dump").getAddress().getPort();
        AddressPolicy policy = AddressPolicy.allowing("127.0.0.0/8")
                .withOwnListeners(OwnListeners.loopbackOnly().add("admin", port));
        // Public when the endpoint was registered; the name now answers with this machine.
        HostResolver changed = host -> List.of(InetAddress.getByName("127.0.0.1"));

        WebhookSender.Sent sent = send(policy, changed, "http://receiver.example:" + port + "/tasks/gc");

        assertThat(sent.result().outcome()).isEqualTo(Outcome.PERMANENT);
        assertThat(sent.error()).contains("Relaybox's own admin port");
        assertThat(sent.responseExcerpt()).isNull();
        assertThat(reachedAt).isEmpty();
    }

    private static WebhookSender.Sent send(AddressPolicy policy, HostResolver resolver, String url) {
        return new WebhookSender(DeliverySettings.defaults(), new EndpointUrlPolicy(policy, resolver))
                .send(
                        url,
                        "msg_1",
                        "{}".getBytes(StandardCharsets.UTF_8),
                        List.of(WebhookSigner.newSecret()),
                        Instant.now());
    }

    private int listenOnTwoLoopbackAddresses() throws IOException {
        for (int tries = 0; tries < 20; tries++) {
            HttpServer checked = server("127.0.0.2", 0, "checked");
            int port = checked.getAddress().getPort();
            try {
                server("127.0.0.1", port, "rebound");
                return port;
            } catch (BindException taken) {
                checked.stop(0);
                servers.remove(checked);
            }
        }
        throw new IllegalStateException("no port free on both 127.0.0.1 and 127.0.0.2");
    }

    private HttpServer server(String address, int port, String answer) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(address, port), 0);
        server.createContext("/", exchange -> {
            try (exchange) {
                exchange.getRequestBody().readAllBytes();
                reachedAt.add(address);
                byte[] body = answer.getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
            }
        });
        server.start();
        servers.add(server);
        return server;
    }
}
