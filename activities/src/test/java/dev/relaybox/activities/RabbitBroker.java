package dev.relaybox.activities;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A real RabbitMQ broker of one test, from Debian's {@code rabbitmq-server}: its own node name, ports, data and log
 * directories and Erlang cookie, on loopback. It can be stopped (connections refused) and started again on the same
 * port and data, where clients look for it, as a broker restart looks to them.
 */
public final class RabbitBroker implements AutoCloseable {
    private static final Path SERVER = Path.of("/usr/lib/rabbitmq/bin/rabbitmq-server");
    private static final Path CONTROL = Path.of("/usr/lib/rabbitmq/bin/rabbitmqctl");

    private final Path home;
    private final String node;
    private final int port;
    private final int distributionPort;
    private volatile Process process;

    private RabbitBroker(Path home) throws IOException {
        this.home = home;
        this.node = "relaybox-" + UUID.randomUUID().toString().substring(0, 8) + "@localhost";
        this.port = BrokerPorts.free();
        this.distributionPort = BrokerPorts.free();
        Files.writeString(home.resolve("enabled_plugins"), "[].\n");
        // The default user, guest, may connect over loopback only, which is where the tests are.
        Files.writeString(home.resolve("rabbitmq.conf"), "log.console = false\n");
    }

    /** Starts a broker whose data lives in {@code home}, and waits until it takes connections. */
    public static RabbitBroker start(Path home) throws IOException {
        RabbitBroker broker = new RabbitBroker(home);
        broker.startAgain();
        return broker;
    }

    /** {@code amqp://127.0.0.1:<port>/%2F}: the default virtual host, no credentials. */
    public String uri() {
        return "amqp://127.0.0.1:" + port + "/%2F";
    }

    /** A connection as a consumer has one, with the default user. */
    public Connection connect() throws IOException {
        ConnectionFactory factory = new ConnectionFactory();
        try {
            factory.setUri(uri());
            return factory.newConnection("test-consumer");
        } catch (GeneralSecurityException | URISyntaxException | TimeoutException e) {
            throw new IOException(e);
        }
    }

    /** Every message waiting in {@code queue}, taken off it. */
    public List<GetResponse> drain(String queue) throws IOException {
        List<GetResponse> messages = new ArrayList<>();
        try (Connection connection = connect();
                Channel channel = connection.createChannel()) {
            for (GetResponse message = channel.basicGet(queue, true);
                    message != null;
                    message = channel.basicGet(queue, true)) {
                messages.add(message);
            }
        } catch (TimeoutException e) {
            throw new IOException(e);
        }
        return messages;
    }

    /** A message's header as text, or null. */
    public static String header(GetResponse message, String name) {
        Object value = message.getProps().getHeaders().get(name);
        return value == null ? null : value.toString();
    }

    /** Starts it again on the same port and data after {@link #stop}. */
    public synchronized void startAgain() throws IOException {
        ProcessBuilder builder = new ProcessBuilder(SERVER.toString())
                .redirectErrorStream(true)
                .redirectOutput(home.resolve("server.log").toFile());
        builder.environment().putAll(environment());
        process = builder.start();
        BrokerPorts.awaitListening(process, port, "rabbitmq-server", home.resolve("server.log"));
    }

    /**
     * Blocks every publisher, as the broker does when it runs short of memory (flow control): connections stay open,
     * publishes are not read. {@link #unblockPublishers} lifts it.
     */
    public void blockPublishers() throws IOException {
        control("set_vm_memory_high_watermark", "0");
    }

    public void unblockPublishers() throws IOException {
        control("set_vm_memory_high_watermark", "0.4");
    }

    private void control(String... arguments) throws IOException {
        List<String> command = new ArrayList<>(List.of(CONTROL.toString(), "-n", node));
        command.addAll(List.of(arguments));
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        home.resolve("control.log").toFile()));
        builder.environment().putAll(environment());
        try {
            Process control = builder.start();
            if (!control.waitFor(60, TimeUnit.SECONDS) || control.exitValue() != 0) {
                throw new IOException(
                        "rabbitmqctl " + String.join(" ", arguments) + " failed; see " + home.resolve("control.log"));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    /** Stops the node: every connection ends and new ones are refused until {@link #startAgain}. */
    public synchronized void stop() {
        Process running = process;
        if (running == null || !running.isAlive()) {
            return;
        }
        try {
            ProcessBuilder builder = new ProcessBuilder(CONTROL.toString(), "-n", node, "stop")
                    .redirectErrorStream(true)
                    .redirectOutput(home.resolve("control.log").toFile());
            builder.environment().putAll(environment());
            builder.start().waitFor(60, TimeUnit.SECONDS);
            if (!running.waitFor(30, TimeUnit.SECONDS)) {
                running.descendants().forEach(ProcessHandle::destroyForcibly);
                running.destroyForcibly();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        stop();
    }

    private Map<String, String> environment() {
        return Map.of(
                "HOME", home.toString(),
                "RABBITMQ_NODENAME", node,
                "RABBITMQ_NODE_IP_ADDRESS", "127.0.0.1",
                "RABBITMQ_NODE_PORT", Integer.toString(port),
                "RABBITMQ_DIST_PORT", Integer.toString(distributionPort),
                "RABBITMQ_MNESIA_BASE", home.resolve("mnesia").toString(),
                "RABBITMQ_LOG_BASE", home.resolve("log").toString(),
                "RABBITMQ_ENABLED_PLUGINS_FILE", home.resolve("enabled_plugins").toString(),
                "RABBITMQ_CONFIG_FILE", home.resolve("rabbitmq").toString(),
                "RABBITMQ_PID_FILE", home.resolve("pid").toString());
    }
}
