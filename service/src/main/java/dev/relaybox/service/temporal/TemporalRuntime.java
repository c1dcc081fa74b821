package dev.relaybox.service.temporal;

import com.uber.m3.tally.Scope;
import dev.relaybox.service.config.TemporalConnection;
import dev.relaybox.service.config.TemporalFactory;
import dev.relaybox.service.config.TemporalFactory.EmbeddedEngine;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import io.dropwizard.lifecycle.Managed;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection to Temporal, the worker that runs Relaybox's workflows and activities and, in embedded
 * mode, the Temporal server they talk to over a real port: the CLI's dev server as a child process, or the
 * in-process one. Stops in the reverse order.
 */
public final class TemporalRuntime implements Managed {
    private static final Logger LOG = LoggerFactory.getLogger(TemporalRuntime.class);

    /** How long a worker factory being replaced may take to finish the tasks it runs. */
    private static final Duration WORKER_SHUTDOWN = Duration.ofSeconds(10);

    private final TemporalFactory config;
    private final String target;
    private final WorkflowServiceStubs stubs;
    private final WorkflowClient client;
    private final RecyclingWatch recyclingWatch = new RecyclingWatch();
    /** Names this process's own HTTP queue: a process started again polls another, and the old one's goes quiet. */
    private final String workerId = UUID.randomUUID().toString();

    private final List<Consumer<Workers>> registrations = new CopyOnWriteArrayList<>();
    /** Replaced by {@link #recycle}; read by the bench's diagnostics under this name. */
    private volatile EmbeddedTemporalServer embeddedServer;
    /** Where the embedded server listens, and its replacements after it: 0 with an external server. */
    private final int embeddedPort;
    /** Embedded mode's real engine, when it runs that rather than the in-process one. */
    private final EmbeddedDevServer devServer;

    private volatile WorkerFactory workerFactory;
    private volatile Workers workers;
    private volatile boolean recycling;

    /**
     * The workers of one worker factory: the main task queue, the HTTP attempts' own, and this process's own HTTP
     * queue (where it waits for the first attempts it handed over).
     */
    public record Workers(Worker worker, Worker httpWorker, Worker ownHttpWorker) {}

    private TemporalRuntime(
            EmbeddedTemporalServer embeddedServer,
            EmbeddedDevServer devServer,
            TemporalConnection connection,
            TemporalFactory config,
            Scope metrics) {
        this.config = config;
        this.embeddedServer = embeddedServer;
        this.devServer = devServer;
        this.embeddedPort = embeddedServer == null ? 0 : embeddedServer.port();
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
        newWorkerFactory();
    }

    /** A worker factory with both workers and every registration so far; the interceptor only where it recycles. */
    private void newWorkerFactory() {
        WorkerFactoryOptions.Builder options = WorkerFactoryOptions.newBuilder();
        if (recycles()) {
            options.setWorkerInterceptors(recyclingWatch);
        }
        WorkerFactory factory = WorkerFactory.newInstance(client, options.build());
        Worker worker = factory.newWorker(
                config.getTaskQueue(),
                WorkerOptions.newBuilder()
                        .setMaxConcurrentActivityExecutionSize(config.getMaxConcurrentActivities())
                        .setMaxConcurrentWorkflowTaskExecutionSize(config.getMaxConcurrentWorkflowTasks())
                        .setMaxConcurrentLocalActivityExecutionSize(config.getMaxConcurrentLocalActivities())
                        .setStickyQueueScheduleToStartTimeout(config.getStickyScheduleToStartTimeout())
                        .setDefaultDeadlockDetectionTimeout(
                                config.getDeadlockDetectionTimeout().toMillis())
                        .build());
        Worker httpWorker = factory.newWorker(
                OutboxDeliveryWorkflow.httpTaskQueue(config.getTaskQueue()),
                WorkerOptions.newBuilder()
                        .setMaxConcurrentActivityExecutionSize(config.getMaxConcurrentHttpAttempts())
                        .build());
        // Only waits on requests already in flight, so as many slots as those may be.
        Worker ownHttpWorker = factory.newWorker(
                OutboxDeliveryWorkflow.ownHttpTaskQueue(config.getTaskQueue(), workerId),
                WorkerOptions.newBuilder()
                        .setMaxConcurrentActivityExecutionSize(config.getMaxConcurrentHttpAttempts())
                        .build());
        Workers fresh = new Workers(worker, httpWorker, ownHttpWorker);
        registrations.forEach(registration -> registration.accept(fresh));
        this.workers = fresh;
        this.workerFactory = factory;
    }

    /** As {@link #create(TemporalFactory, Scope, Path, Map)} with this process's environment. */
    public static TemporalRuntime create(TemporalFactory config, Scope metrics, Path postgresDataDirectory) {
        return create(config, metrics, postgresDataDirectory, System.getenv());
    }

    /**
     * Connects to {@code config.address} as {@link TemporalConnection} describes, or first starts the embedded engine
     * when it says embedded: the Temporal CLI's dev server when {@code environment} leads to the CLI (see
     * {@link TemporalCli}) and {@code temporal.embeddedEngine} allows it, else the in-process server. Refuses a
     * {@code temporal} section that cannot connect securely.
     */
    public static TemporalRuntime create(
            TemporalFactory config, Scope metrics, Path postgresDataDirectory, Map<String, String> environment) {
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
            return new TemporalRuntime(null, null, connection, config, metrics);
        }
        Optional<Path> cli = config.getEmbeddedEngine() == EmbeddedEngine.IN_PROCESS
                ? Optional.empty()
                : TemporalCli.find(environment);
        if (cli.isPresent()) {
            // The CLI is told its port, so one is picked for it; the in-process engine binds 0 itself.
            int port = config.getEmbeddedPort() > 0 ? config.getEmbeddedPort() : freePort();
            return onDevServer(config, metrics, postgresDataDirectory, cli.get(), port);
        }
        if (config.getEmbeddedEngine() == EmbeddedEngine.DEV_SERVER) {
            throw new IllegalStateException("refusing to start: temporal.embeddedEngine is dev-server but the "
                    + "Temporal CLI was not found (" + TemporalCli.HOW_TO_INSTALL + ")");
        }
        EmbeddedTemporalServer server = EmbeddedTemporalServer.start(config.getEmbeddedPort());
        String target = server.target();
        registerSearchAttributes(target, config.getNamespace());
        if (config.getEmbeddedEngine() == EmbeddedEngine.AUTO) {
            LOG.warn(
                    "embedded Temporal: the in-process engine on {}, which forgets workflows at a restart (the "
                            + "database re-drives unfinished work) and has no UI; with the Temporal CLI ({}) the "
                            + "real Temporal server runs instead, keeping workflows, timers and history across "
                            + "restarts, with the Temporal UI",
                    target,
                    TemporalCli.HOW_TO_INSTALL);
        } else {
            LOG.info("embedded Temporal: the in-process engine on {} (temporal.embeddedEngine: in-process)", target);
        }
        return new TemporalRuntime(server, null, TemporalConnection.plaintext(target), config, metrics);
    }

    private static TemporalRuntime onDevServer(
            TemporalFactory config, Scope metrics, Path postgresDataDirectory, Path cli, int port) {
        Path directory = config.embeddedDataDirectory(postgresDataDirectory);
        EmbeddedDevServer server =
                EmbeddedDevServer.start(cli, directory, port, config.embeddedUiPort(), config.embeddedSqlitePragmas());
        try {
            registerSearchAttributes(server.target(), config.getNamespace());
            LOG.info(
                    "embedded Temporal: the Temporal CLI's dev server on {} (pid {}{}), state in {}, UI {}",
                    server.target(),
                    server.pid(),
                    server.adopted() ? ", adopted" : "",
                    directory,
                    server.uiUrl().orElse("off"));
            return new TemporalRuntime(null, server, TemporalConnection.plaintext(server.target()), config, metrics);
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
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

    /**
     * Registers workflow and activity implementations on the workers, before {@link #start()}; applied again to the
     * workers of every worker factory a recycle of the embedded server builds.
     */
    public void registerWorkers(Consumer<Workers> registration) {
        registration.accept(workers);
        registrations.add(registration);
    }

    /** Whether the worker factory runs: started and not shut down, or being replaced by a recycle. */
    public boolean isWorkerRunning() {
        // The flag is set before the old factory shuts down and cleared once the new one runs: asked before and after
        // reading the factory, a recycle that starts or ends in between never shows as a stopped worker.
        if (recycling) {
            return true;
        }
        WorkerFactory factory = workerFactory;
        return (factory.isStarted() && !factory.isShutdown()) || recycling;
    }

    /** Whether the embedded server is being replaced right now (see {@link #recycle}). */
    public boolean isRecycling() {
        return recycling;
    }

    /**
     * Whether this runtime recycles its engine: the in-process one with {@code temporal.embeddedRecycleAfter} above 0
     * (the dev server keeps executions on disk, not in this heap).
     */
    public boolean recycles() {
        return embeddedServer != null && config.embeddedRecycleAfter() > 0;
    }

    /** The embedded dev server's UI for links ({@code http://localhost:<port>}); empty without one. */
    /** The embedded engine's own process, when it runs in one (the dev server). */
    public OptionalLong enginePid() {
        return devServer == null ? OptionalLong.empty() : OptionalLong.of(devServer.pid());
    }

    public Optional<String> embeddedUiUrl() {
        return devServer == null ? Optional.empty() : devServer.uiUrl();
    }

    /** Whether embedded mode runs the in-process engine (no UI can attach to it, it forgets at a restart). */
    public boolean inProcessEngine() {
        return embeddedServer != null;
    }

    /** The port the in-process engine listens on (the one it bound when configured with 0), if it runs. */
    public OptionalInt inProcessEnginePort() {
        return embeddedServer == null ? OptionalInt.empty() : OptionalInt.of(embeddedPort);
    }

    /** Workflow executions finished on the current embedded server (counted only where it {@link #recycles}). */
    public long finishedExecutions() {
        return recyclingWatch.finishedExecutions();
    }

    /** How a recycle went: how long the quiesce took and whether everything in flight settled within its limit. */
    public record Recycle(Duration quiesce, boolean settled, String unsettled) {}

    /**
     * Replaces the embedded server with a fresh one on the same port; the caller re-drives open work from the
     * database afterwards (the fresh server knows no execution) and keeps new starts away meanwhile. First the
     * quiesce: no new HTTP attempt starts, and those in flight finish and have their outcome recorded (at most
     * {@code quiesceLimit}); then the worker factory stops, the server is replaced, its search attributes are
     * registered, and a new worker factory with the same registrations starts. The client and its stubs stay: they
     * reconnect to the same port.
     */
    public synchronized Recycle recycle(Duration quiesceLimit) throws InterruptedException {
        if (embeddedServer == null) {
            throw new IllegalStateException("only the embedded server is recycled");
        }
        long quiesceStarted = System.nanoTime();
        recyclingWatch.stopAttempts();
        workers.httpWorker().suspendPolling();
        boolean settled = recyclingWatch.awaitSettled(quiesceLimit);
        String unsettled = settled ? "" : recyclingWatch.unsettled();
        Duration quiesce = Duration.ofNanos(System.nanoTime() - quiesceStarted);
        recycling = true;
        try {
            workerFactory.shutdown();
            workerFactory.awaitTermination(WORKER_SHUTDOWN.toSeconds(), TimeUnit.SECONDS);
            embeddedServer.close();
            embeddedServer = EmbeddedTemporalServer.start(embeddedPort);
            registerSearchAttributes(target, config.getNamespace());
            awaitFrontend();
            recyclingWatch.freshEngine();
            newWorkerFactory();
            workerFactory.start();
        } finally {
            recycling = false;
        }
        return new Recycle(quiesce, settled, unsettled);
    }

    /** The client's own connection may be waiting out a reconnect backoff: it answers before anything else calls. */
    private void awaitFrontend() {
        stubs.blockingStub()
                .withWaitForReady()
                .withDeadlineAfter(10, TimeUnit.SECONDS)
                .getSystemInfo(GetSystemInfoRequest.getDefaultInstance());
    }

    @Override
    public void start() {
        workerFactory.start();
    }

    @Override
    public synchronized void stop() throws Exception {
        workerFactory.shutdown();
        workerFactory.awaitTermination(10, TimeUnit.SECONDS);
        stubs.shutdown();
        stubs.awaitTermination(5, TimeUnit.SECONDS);
        if (embeddedServer != null) {
            embeddedServer.close();
        }
        if (devServer != null) {
            devServer.close();
        }
    }
}
