package dev.relaybox.bench;

import com.codahale.metrics.MetricRegistry;
import dev.relaybox.service.RelayboxApplication;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.temporal.EmbeddedDevServer;
import dev.relaybox.store.Store;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.jdbi.v3.core.Jdbi;

/**
 * The real Relaybox application, booted in this JVM by Dropwizard's test support from the given config.yml:
 * free ports, a throwaway data directory, WARN logging. DATABASE_URL / TEMPORAL_ADDRESS in the environment
 * point it at an external PostgreSQL / Temporal instead, exactly as they do for the service.
 */
final class Relaybox implements AutoCloseable {
    final DropwizardTestSupport<RelayboxConfiguration> support;
    private final Path dataDirectory;
    private final int temporalPort;
    private final Engine engine;
    private ManagedDataSource pool;
    private Jdbi jdbi;
    private WorkflowServiceStubs stubs;

    private Relaybox(
            DropwizardTestSupport<RelayboxConfiguration> support, Path dataDirectory, int temporalPort, Engine engine) {
        this.support = support;
        this.dataDirectory = dataDirectory;
        this.temporalPort = temporalPort;
        this.engine = engine;
    }

    /** Boots it on {@code engine}: one it starts itself (embedded mode), or the pass's postgres-server. */
    static Relaybox start(Path config, Engine engine, List<ConfigOverride> extra) throws Exception {
        Path data = Files.createTempDirectory("relaybox-bench");
        int temporalPort = freePort();
        List<ConfigOverride> overrides = new ArrayList<>(List.of(
                ConfigOverride.config("server.applicationConnectors[0].port", "0"),
                ConfigOverride.config("server.adminConnectors[0].port", "0"),
                ConfigOverride.config(
                        "embeddedPostgres.dataDirectory",
                        data.resolve("postgres").toString()),
                ConfigOverride.config("embeddedPostgres.port", "0"),
                ConfigOverride.config("temporal.embeddedPort", Integer.toString(temporalPort)),
                ConfigOverride.config(
                        "temporal.embeddedDataDirectory",
                        data.resolve("temporal").toString()),
                ConfigOverride.config("temporal.embeddedUiPort", "off"),
                ConfigOverride.config("logging.level", "WARN")));
        overrides.addAll(engine.overrides());
        overrides.addAll(extra);
        DropwizardTestSupport<RelayboxConfiguration> support = new DropwizardTestSupport<>(
                RelayboxApplication.class,
                config.toAbsolutePath().toString(),
                overrides.toArray(ConfigOverride[]::new));
        support.before();
        // WARN logging for the benchmark covers the request log too: one console line per request is noise here.
        support.getEnvironment().getApplicationContext().getServer().setRequestLog(null);
        Relaybox relaybox = new Relaybox(support, data, temporalPort, engine);
        if (relaybox.embeddedDatabase()) {
            Machine.postgresDataDirectory = data.resolve("postgres");
        }
        return relaybox;
    }

    RelayboxConfiguration config() {
        return support.getConfiguration();
    }

    URI api(String path) {
        return URI.create("http://127.0.0.1:" + support.getLocalPort() + path);
    }

    boolean embeddedDatabase() {
        return System.getenv("DATABASE_URL") == null
                || System.getenv("DATABASE_URL").isBlank();
    }

    boolean embeddedTemporal() {
        return config().getTemporal().isEmbedded();
    }

    String temporalTarget() {
        return embeddedTemporal()
                ? "localhost:" + temporalPort
                : config().getTemporal().getAddress();
    }

    Engine engine() {
        return engine;
    }

    /** The engine's own processes: the embedded dev server's, or the postgres-server engine's; none in process. */
    EngineProcesses engineProcesses() {
        if (!embeddedTemporal()) {
            return engine.processes().orElse(EngineProcesses.NONE);
        }
        return EmbeddedDevServer.recordedPid(dataDirectory.resolve("temporal"))
                .map(EngineProcesses::server)
                .orElse(EngineProcesses.NONE);
    }

    int adminPort() {
        return support.getAdminPort();
    }

    /** The pool size Relaybox itself uses. */
    int poolSize() {
        return config().getDatabase().getMaxSize();
    }

    /**
     * A second pool built from Relaybox's own database settings (the same URL, size and validation): baselines
     * and the bench's bookkeeping use it, so they never take connections from the service.
     */
    synchronized Jdbi jdbi() {
        if (jdbi == null) {
            // The application has already replaced "embedded" by the embedded server's real URL.
            pool = config().getDatabase().build(new MetricRegistry(), "bench");
            jdbi = Store.configure(Jdbi.create(pool));
        }
        return jdbi;
    }

    synchronized WorkflowServiceStubs temporalStubs() {
        if (stubs == null) {
            stubs = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder()
                    .setTarget(temporalTarget())
                    .build());
        }
        return stubs;
    }

    String namespace() {
        return config().getTemporal().getNamespace();
    }

    @Override
    public void close() throws Exception {
        if (stubs != null) {
            stubs.shutdownNow();
        }
        if (pool != null) {
            pool.stop();
        }
        support.after();
        Machine.postgresDataDirectory = null;
        try (Stream<Path> files = Files.walk(dataDirectory)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // A temp directory left behind is harmless.
        }
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
