package dev.relaybox.bench;

import io.dropwizard.testing.ConfigOverride;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The Temporal engine one pass runs every scenario on: one of embedded mode's engines ({@code dev-server},
 * {@code in-process}), which Relaybox starts itself, or {@code postgres-server}, Temporal's real server on
 * PostgreSQL that the bench starts for the pass and every Relaybox of the pass connects to.
 */
final class Engine implements AutoCloseable {
    static final String POSTGRES_SERVER = "postgres-server";

    final String name;
    private final PostgresTemporalServer server;
    /**
     * With an external Temporal Relaybox runs in production mode, which refuses the development tokens and partner
     * secret: the pass's own, made up here unless the environment gives them as it would in production.
     */
    private final List<ConfigOverride> production;

    private Engine(String name, PostgresTemporalServer server, List<ConfigOverride> production) {
        this.name = name;
        this.server = server;
        this.production = production;
    }

    /** config.yml's {@code temporal.namespace}, known before Relaybox boots so the server has it ready. */
    private static final String NAMESPACE = Shop.env("TEMPORAL_NAMESPACE", "default");

    static Engine start(Options o) throws Exception {
        if (!POSTGRES_SERVER.equals(o.engine)) {
            return new Engine(o.engine, null, List.of());
        }
        TemporalServerBuild build = TemporalServerBuild.at(
                o.temporalServer != null ? o.temporalServer : TemporalServerBuild.defaultServer());
        System.out.println("Starting the postgres-server engine: " + build.server + " on its own PostgreSQL");
        PostgresTemporalServer server = PostgresTemporalServer.start(build, NAMESPACE);
        return new Engine(o.engine, server, productionOverrides(server.target()));
    }

    /** Whether Relaybox starts the engine itself (embedded mode) rather than connecting to this one. */
    boolean embedded() {
        return server == null;
    }

    /**
     * How a Relaybox of this pass is pointed at the engine. Each gets a task queue of its own on the shared server, so
     * a second Relaybox a scenario boots (with its own database) never takes the first one's tasks.
     */
    List<ConfigOverride> overrides() {
        if (server == null) {
            // Embedded mode would make credentials of its own: the bench's (the environment's, else the development
            // ones, accepted on loopback) are configured instead.
            return List.of(
                    ConfigOverride.config("temporal.embeddedEngine", name),
                    ConfigOverride.config("auth.adminTokens", Admin.TOKEN),
                    ConfigOverride.config(
                            "auth.producerTokens", Shop.env("RELAYBOX_PRODUCER_TOKENS", "dev-producer-token")),
                    ConfigOverride.config("partners.shop.signature.secrets", Shop.SECRET));
        }
        List<ConfigOverride> overrides = new ArrayList<>(production);
        overrides.add(ConfigOverride.config("temporal.taskQueue", "relaybox-" + UUID.randomUUID()));
        return overrides;
    }

    /** Fails when Relaybox's configuration names another namespace than the one this engine set up. */
    void checkNamespace(String relayboxNamespace) {
        if (server != null && !NAMESPACE.equals(relayboxNamespace)) {
            throw new IllegalStateException("the postgres-server engine set up namespace " + NAMESPACE
                    + " (TEMPORAL_NAMESPACE), but the configuration names " + relayboxNamespace);
        }
    }

    /** The engine's own processes when the bench started them; embedded engines are found through Relaybox. */
    Optional<EngineProcesses> processes() {
        return Optional.ofNullable(server).map(PostgresTemporalServer::processes);
    }

    /** For the results file, with the version the server reports. */
    String describe(String serverVersion) {
        return "Temporal server " + serverVersion + " (go install " + TemporalServerBuild.VERSION
                + ", its own process) on " + server.postgresVersion() + " (its own zonky cluster), "
                + TemporalServerConfig.HISTORY_SHARDS + " history shards, SQL visibility, at " + server.target();
    }

    private static List<ConfigOverride> productionOverrides(String target) {
        SecureRandom random = new SecureRandom();
        byte[] key = new byte[32];
        random.nextBytes(key);
        List<ConfigOverride> overrides = new ArrayList<>(List.of(
                ConfigOverride.config("temporal.address", target),
                // The bench's receiver listens on loopback.
                ConfigOverride.config("delivery.allowedPrivateNetworks", "127.0.0.0/8")));
        if (System.getenv("RELAYBOX_SECRETS_KEY") == null) {
            overrides.add(
                    ConfigOverride.config("secrets.key", Base64.getEncoder().encodeToString(key)));
        }
        if (System.getenv("RELAYBOX_ADMIN_TOKENS") == null) {
            overrides.add(ConfigOverride.config("auth.adminTokens", token(random)));
        }
        if (System.getenv("RELAYBOX_PRODUCER_TOKENS") == null) {
            overrides.add(ConfigOverride.config("auth.producerTokens", token(random)));
        }
        if (System.getenv("SHOP_WEBHOOK_SECRET") == null) {
            byte[] secret = new byte[24];
            random.nextBytes(secret);
            overrides.add(ConfigOverride.config(
                    "partners.shop.signature.secrets",
                    "whsec_" + Base64.getEncoder().encodeToString(secret)));
        }
        return overrides;
    }

    private static String token(SecureRandom random) {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
    }
}
