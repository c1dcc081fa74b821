package dev.relaybox.service.temporal;

import com.uber.m3.tally.Scope;
import dev.relaybox.service.config.TemporalFactory;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import io.dropwizard.lifecycle.Managed;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerOptions;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection to Temporal, the worker that runs Relaybox's workflows and activities and, in embedded
 * mode, the in-process Temporal server they talk to over a real port. Stops in the reverse order.
 */
public final class TemporalRuntime implements Managed {
    private static final Logger LOG = LoggerFactory.getLogger(TemporalRuntime.class);

    private final Closeable embeddedServer;
    private final String target;
    private final WorkflowServiceStubs stubs;
    private final WorkflowClient client;
    private final WorkerFactory workerFactory;
    private final Worker worker;
    private final Worker httpWorker;

    private TemporalRuntime(
            Closeable embeddedServer, TemporalConnection connection, TemporalFactory config, Scope metrics) {
        this.embeddedServer = embeddedServer;
        this.target = connection.target();
        this.stubs = WorkflowServiceStubs.newServiceStubs(connection
                .workflowServiceStubsOptions()
                .setMetricsScope(metrics)
                .build());
        this.client = WorkflowClient.newInstance(
                stubs,
                WorkflowClientOptions.newBuilder()
                        .setNamespace(config.getNamespace())
                        .build());
        this.workerFactory = WorkerFactory.newInstance(client);
        this.worker = workerFactory.newWorker(
                config.getTaskQueue(),
                WorkerOptions.newBuilder()
                        .setMaxConcurrentActivityExecutionSize(config.getMaxConcurrentActivities())
                        .setMaxConcurrentWorkflowTaskExecutionSize(config.getMaxConcurrentWorkflowTasks())
                        .setMaxConcurrentLocalActivityExecutionSize(config.getMaxConcurrentLocalActivities())
                        .setStickyQueueScheduleToStartTimeout(config.getStickyScheduleToStartTimeout())
                        .build());
        this.httpWorker = workerFactory.newWorker(
                OutboxDeliveryWorkflow.httpTaskQueue(config.getTaskQueue()),
                WorkerOptions.newBuilder()
                        .setMaxConcurrentActivityExecutionSize(config.getMaxConcurrentHttpAttempts())
                        .build());
    }

    /**
     * Connects to {@code config.address} as {@link TemporalConnection} describes, or first starts the in-process
     * server when it says embedded. Refuses a {@code temporal} section that cannot connect securely.
     */
    public static TemporalRuntime create(TemporalFactory config, Scope metrics) {
        TemporalConnection connection;
        try {
            connection = TemporalConnection.from(config);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("refusing to start: " + e.getMessage(), e);
        }
        if (!config.isEmbedded()) {
            LOG.info("connecting to Temporal at {} ({})", connection.target(), connection.description());
            if (connection.sendsApiKeyInPlaintext()) {
                LOG.warn(
                        "temporal.apiKey goes to {} without TLS because temporal.tls.enabled is false: anyone on "
                                + "the network path can read it",
                        connection.target());
            }
            return new TemporalRuntime(null, connection, config, metrics);
        }
        int port = config.getEmbeddedPort() > 0 ? config.getEmbeddedPort() : freePort();
        EmbeddedTemporalServer server = EmbeddedTemporalServer.start(port);
        String target = server.target();
        registerSearchAttributes(target, config.getNamespace());
        LOG.info(
                "embedded Temporal server listening on {} (in memory: unfinished work is re-driven from "
                        + "the database after a restart)",
                target);
        return new TemporalRuntime(server, TemporalConnection.plaintext(target), config, metrics);
    }

    private static void registerSearchAttributes(String target, String namespace) {
        WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(TemporalConnection.plaintext(target)
                .workflowServiceStubsOptions()
                .build());
        try (TemporalSetup setup = new TemporalSetup(stubs, namespace, Duration.ofSeconds(10))) {
            setup.ensureSearchAttributes();
        } finally {
            stubs.shutdownNow();
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String target() {
        return target;
    }

    public WorkflowServiceStubs stubs() {
        return stubs;
    }

    public WorkflowClient client() {
        return client;
    }

    /** Register implementations here before {@link #start()}. */
    public Worker worker() {
        return worker;
    }

    /** Polls the HTTP attempts' own task queue: register the delivery activities here too. */
    public Worker httpWorker() {
        return httpWorker;
    }

    /** Whether the worker factory runs: started and not shut down. */
    public boolean isWorkerRunning() {
        return workerFactory.isStarted() && !workerFactory.isShutdown();
    }

    @Override
    public void start() {
        workerFactory.start();
    }

    @Override
    public void stop() throws Exception {
        workerFactory.shutdown();
        workerFactory.awaitTermination(10, TimeUnit.SECONDS);
        stubs.shutdown();
        stubs.awaitTermination(5, TimeUnit.SECONDS);
        if (embeddedServer != null) {
            embeddedServer.close();
        }
    }
}
