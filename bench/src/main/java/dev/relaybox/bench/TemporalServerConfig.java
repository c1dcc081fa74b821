package dev.relaybox.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The postgres-server engine's configuration: Temporal's own {@code config/development-postgres12.yaml} with this
 * engine's PostgreSQL, its ports and a dynamic-config file like docker-compose's, and without what a benchmark does not
 * use (archival, pprof, the Prometheus listener).
 */
final class TemporalServerConfig {
    /** As the dev server and the server image docker-compose runs (its NUM_HISTORY_SHARDS default). */
    static final int HISTORY_SHARDS = 4;

    /** One gRPC and one membership port per service; the frontend also has its HTTP API. */
    record Ports(
            int frontend,
            int frontendMembership,
            int frontendHttp,
            int history,
            int historyMembership,
            int matching,
            int matchingMembership,
            int worker,
            int workerMembership) {
        /** Below the kernel's ephemeral range, where port 0 would land: see {@link #free}. */
        private static final int LOWEST = 20_000;

        private static final int HIGHEST = 32_767;

        /**
         * Nine distinct free ports, all held at once and released together just before the server starts: the server
         * takes its ports from its configuration file and cannot report ports it chose itself. They are below 32768
         * because Temporal's PostgreSQL schema keeps a host's port in a SMALLINT ({@code cluster_membership.rpc_port}),
         * and port 0 would give one from the ephemeral range above it.
         */
        static Ports free() {
            List<ServerSocket> held = new ArrayList<>();
            try {
                int[] p = new int[9];
                int candidate = LOWEST + ThreadLocalRandom.current().nextInt(HIGHEST - LOWEST - 1000);
                for (int i = 0; i < p.length; candidate++) {
                    if (candidate > HIGHEST) {
                        throw new IllegalStateException("no nine free ports between " + LOWEST + " and " + HIGHEST);
                    }
                    try {
                        ServerSocket socket = new ServerSocket(candidate, 1, InetAddress.getLoopbackAddress());
                        held.add(socket);
                        p[i++] = candidate;
                    } catch (IOException taken) {
                        // Someone else's: try the next one.
                    }
                }
                return new Ports(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8]);
            } finally {
                for (ServerSocket socket : held) {
                    try {
                        socket.close();
                    } catch (IOException ignored) {
                        // Closing a listening socket that never accepted anything does not fail in practice.
                    }
                }
            }
        }
    }

    private TemporalServerConfig() {}

    /** The server's YAML for PostgreSQL on {@code postgresPort} (user postgres, trust authentication). */
    static String yaml(Ports ports, int postgresPort, String postgresUser, Path dynamicConfig) {
        return String.format(
                Locale.ROOT,
                """
                log:
                  stdout: true
                  level: warn

                persistence:
                  defaultStore: postgres-default
                  visibilityStore: postgres-visibility
                  numHistoryShards: %1$d
                  datastores:
                    postgres-default:
                      sql:
                        pluginName: "postgres12"
                        databaseName: "temporal"
                        connectAddr: "127.0.0.1:%2$d"
                        connectProtocol: "tcp"
                        user: "%3$s"
                        password: ""
                        maxConns: 20
                        maxIdleConns: 20
                        maxConnLifetime: "1h"
                    postgres-visibility:
                      sql:
                        pluginName: "postgres12"
                        databaseName: "temporal_visibility"
                        connectAddr: "127.0.0.1:%2$d"
                        connectProtocol: "tcp"
                        user: "%3$s"
                        password: ""
                        maxConns: 2
                        maxIdleConns: 2
                        maxConnLifetime: "1h"

                global:
                  membership:
                    maxJoinDuration: 30s
                    broadcastAddress: "127.0.0.1"

                services:
                  frontend:
                    rpc:
                      grpcPort: %4$d
                      membershipPort: %5$d
                      httpPort: %6$d
                      bindOnLocalHost: true
                  history:
                    rpc:
                      grpcPort: %7$d
                      membershipPort: %8$d
                      bindOnLocalHost: true
                  matching:
                    rpc:
                      grpcPort: %9$d
                      membershipPort: %10$d
                      bindOnLocalHost: true
                  worker:
                    rpc:
                      grpcPort: %11$d
                      membershipPort: %12$d
                      bindOnLocalHost: true

                clusterMetadata:
                  enableGlobalNamespace: false
                  failoverVersionIncrement: 10
                  masterClusterName: "active"
                  currentClusterName: "active"
                  clusterInformation:
                    active:
                      enabled: true
                      initialFailoverVersion: 1
                      rpcName: "frontend"
                      rpcAddress: "127.0.0.1:%4$d"

                dcRedirectionPolicy:
                  policy: "noop"

                dynamicConfigClient:
                  filepath: "%13$s"
                  pollInterval: "10s"
                """,
                HISTORY_SHARDS,
                postgresPort,
                postgresUser,
                ports.frontend(),
                ports.frontendMembership(),
                ports.frontendHttp(),
                ports.history(),
                ports.historyMembership(),
                ports.matching(),
                ports.matchingMembership(),
                ports.worker(),
                ports.workerMembership(),
                dynamicConfig.toAbsolutePath());
    }

    /** docker/temporal/dynamicconfig/development-sql.yaml's settings: what Relaybox runs with in production. */
    static String dynamicConfig() {
        return """
                limit.maxIDLength:
                  - value: 255
                    constraints: {}
                system.forceSearchAttributesCacheRefreshOnRead:
                  - value: true
                    constraints: {}
                matching.enableFairness:
                  - value: true
                    constraints: {}
                """;
    }
}
