package dev.relaybox.service.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;

/** How Relaybox reaches Temporal; {@code address: embedded} runs an in-process server instead. */
@ValidTemporalConnection
public final class TemporalFactory {
    public static final String EMBEDDED = "embedded";
    public static final int DEFAULT_EMBEDDED_RECYCLE_AFTER = 5000;
    public static final String DEFAULT_UI_BASE_URL = "http://localhost:8233";

    /** The engine of embedded mode; see {@link #embeddedEngine}. */
    public enum EmbeddedEngine {
        AUTO,
        DEV_SERVER,
        IN_PROCESS;

        @JsonCreator
        public static EmbeddedEngine parse(String value) {
            return valueOf(value.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
        }
    }

    @NotEmpty
    @JsonProperty
    private String address = EMBEDDED;

    @NotEmpty
    @JsonProperty
    private String namespace = "default";

    @NotEmpty
    @JsonProperty
    private String taskQueue = "relaybox";

    /** Port of the in-process server in embedded mode; 0 picks a free port. */
    @Min(0)
    @Max(65535)
    @JsonProperty
    private int embeddedPort = 7233;

    /**
     * Embedded mode only (ignored with an external server): once the in-process server has run this many workflow
     * executions it is replaced by a fresh one and open work is re-driven from the database, because the SDK's test
     * server keeps every execution in memory for good. 0 never recycles. The default bounds the engine to a few
     * thousand executions (about 30 KiB each) at a cost of one short pause per 5,000 events; see
     * docs/performance.md, "Embedded engine recycling".
     */
    @Min(0)
    @JsonProperty
    private int embeddedRecycleAfter = DEFAULT_EMBEDDED_RECYCLE_AFTER;

    /**
     * Which engine embedded mode runs: {@code dev-server} is {@code temporal server start-dev} from the Temporal CLI
     * as a child process (state in SQLite under {@link #embeddedDataDirectory}, the Temporal UI); {@code in-process}
     * is the SDK's in-memory test server, which forgets every workflow at a restart; {@code auto} is the dev server
     * when the CLI is found, else in-process.
     */
    @NotNull
    @JsonProperty
    private EmbeddedEngine embeddedEngine = EmbeddedEngine.AUTO;

    /**
     * Where the dev server keeps its SQLite file, pid file and log; empty is {@code temporal} beside the embedded
     * PostgreSQL's data directory ({@code ./data/temporal} as shipped).
     */
    @JsonProperty
    private String embeddedDataDirectory = "";

    /**
     * The dev server's Web UI port on 127.0.0.1; {@code 0} or {@code off} runs it headless ({@code false}: YAML reads
     * an unquoted {@code off} as a boolean).
     */
    @NotNull
    @Pattern(regexp = "off|false|\\d{1,5}")
    @JsonProperty
    private String embeddedUiPort = "8233";

    /**
     * The dev server's SQLite pragmas, {@code name=value} separated by commas; empty is SQLite's defaults. The
     * write-ahead log with {@code synchronous=NORMAL} commits without an fsync each (measured in docs/performance.md);
     * a power loss may then take the engine's last transactions, whose open rows the reconciler re-drives.
     */
    @NotNull
    @Pattern(regexp = "([a-z_]+=[A-Za-z0-9_]+(,[a-z_]+=[A-Za-z0-9_]+)*)?")
    @JsonProperty
    private String embeddedSqlitePragmas = "journal_mode=wal,synchronous=NORMAL";

    /**
     * Base of the links from the admin API and page into the Temporal UI; empty is the embedded dev server's UI in
     * embedded mode, else {@code http://localhost:8233}.
     */
    @JsonProperty
    private String uiBaseUrl = "";

    /*
     * The worker's slots are few by default: with all roles in one process the worker shares the cores with the
     * intake, and workflow tasks and their local activities are CPU- and database-bound, so more slots than cores
     * only queue them in front of the webhooks being answered without draining a backlog faster (measured in
     * docs/performance.md, "Intake while a backlog drains"). A worker-only process on more cores can raise them.
     */
    @Min(1)
    @JsonProperty
    private int maxConcurrentActivities = 8;

    @Min(1)
    @JsonProperty
    private int maxConcurrentWorkflowTasks = 8;

    /**
     * Local activities (the database-only workflow steps) running at once in this worker, on its own threads and
     * with a pooled connection each; the SDK's own default is 200.
     */
    @Min(1)
    @JsonProperty
    private int maxConcurrentLocalActivities = 16;

    /** Worker slots for outbound HTTP attempts, apart from {@code maxConcurrentActivities}. */
    @Min(1)
    @JsonProperty
    private int maxConcurrentHttpAttempts = 64;

    /**
     * How long a workflow task waits on the worker that ran the workflow last before any worker may take it
     * (sticky execution); 0 turns sticky execution off. Servers that do not time sticky tasks out (the SDK's
     * standalone test server) need 0 when a worker can die, or its workflows wait for it for ever.
     */
    @NotNull
    @JsonProperty
    private Duration stickyScheduleToStartTimeout = Duration.seconds(5);

    /**
     * How long a workflow thread may run without yielding before Temporal's deadlock detector fails its task
     * (Temporal's default, 1s). A host so loaded that a workflow thread waits longer for a CPU sees false alarms,
     * each costing the task's timeout: raise it there.
     */
    @NotNull
    @JsonProperty
    private Duration deadlockDetectionTimeout = Duration.seconds(1);

    /** TLS towards a remote cluster; see {@link TemporalConnection}. */
    @Valid
    @NotNull
    @JsonProperty
    private TemporalTlsFactory tls = new TemporalTlsFactory();

    /** Sent as {@code Authorization: Bearer <apiKey>} on every call (Temporal Cloud); turns TLS on by default. */
    @JsonProperty
    private String apiKey;

    public boolean isEmbedded() {
        return EMBEDDED.equals(address);
    }

    public String getAddress() {
        return address;
    }

    public String getNamespace() {
        return namespace;
    }

    public String getTaskQueue() {
        return taskQueue;
    }

    public int getEmbeddedPort() {
        return embeddedPort;
    }

    /**
     * Executions after which the in-process engine is recycled; 0 when it never is (always 0 outside embedded mode;
     * the dev server keeps its executions on disk and is never recycled).
     */
    public int embeddedRecycleAfter() {
        return isEmbedded() ? embeddedRecycleAfter : 0;
    }

    public EmbeddedEngine getEmbeddedEngine() {
        return embeddedEngine;
    }

    /** The dev server's directory: the setting, or {@code temporal} beside {@code postgresDataDirectory}. */
    public Path embeddedDataDirectory(Path postgresDataDirectory) {
        Optional<String> configured = TemporalTlsFactory.blankToEmpty(embeddedDataDirectory);
        if (configured.isPresent()) {
            return Path.of(configured.get()).toAbsolutePath();
        }
        Path postgres = postgresDataDirectory.toAbsolutePath().normalize();
        Path parent = postgres.getParent() == null ? postgres : postgres.getParent();
        return parent.resolve("temporal");
    }

    /** The dev server's UI port; empty when it runs headless. */
    public OptionalInt embeddedUiPort() {
        if (embeddedUiPort.equals("off") || embeddedUiPort.equals("false") || Integer.parseInt(embeddedUiPort) == 0) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(Integer.parseInt(embeddedUiPort));
    }

    public List<String> embeddedSqlitePragmas() {
        return embeddedSqlitePragmas.isEmpty() ? List.of() : List.of(embeddedSqlitePragmas.split(","));
    }

    /** The configured base of links into the Temporal UI; empty when left to the engine's default. */
    public Optional<String> uiBaseUrl() {
        return TemporalTlsFactory.blankToEmpty(uiBaseUrl);
    }

    /** The link base outside embedded mode: the setting, or the Temporal CLI's default UI address. */
    public String getUiBaseUrl() {
        return uiBaseUrl().orElse(DEFAULT_UI_BASE_URL);
    }

    public int getMaxConcurrentActivities() {
        return maxConcurrentActivities;
    }

    public int getMaxConcurrentLocalActivities() {
        return maxConcurrentLocalActivities;
    }

    public int getMaxConcurrentHttpAttempts() {
        return maxConcurrentHttpAttempts;
    }

    public java.time.Duration getDeadlockDetectionTimeout() {
        return deadlockDetectionTimeout.toJavaDuration();
    }

    public java.time.Duration getStickyScheduleToStartTimeout() {
        return stickyScheduleToStartTimeout.toJavaDuration();
    }

    public int getMaxConcurrentWorkflowTasks() {
        return maxConcurrentWorkflowTasks;
    }

    public TemporalTlsFactory getTls() {
        return tls;
    }

    public Optional<String> apiKey() {
        return TemporalTlsFactory.blankToEmpty(apiKey);
    }
}
