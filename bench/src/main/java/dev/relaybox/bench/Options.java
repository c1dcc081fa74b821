package dev.relaybox.bench;

import dev.relaybox.service.temporal.TemporalCli;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** Command-line options; every size is a parameter so a quick run and a long one use the same code. */
final class Options {
    static final List<String> SCENARIOS = List.of(
            "inbox",
            "duplicates",
            "durability",
            "outbound",
            "fanout",
            "destinations",
            "inbound",
            "api",
            "drain",
            "memory",
            "intake-under-load",
            "aging",
            "crash-drill",
            "workers",
            "roles",
            "tracing");
    static final List<String> ENGINES = List.of("dev-server", "in-process", Engine.POSTGRES_SERVER);
    /** Run without --only: all but the long ones, which are asked for by name. */
    static final List<String> DEFAULT_SCENARIOS =
            List.of("inbox", "duplicates", "durability", "outbound", "fanout", "inbound", "api", "drain", "memory");

    int n = 1000;
    int concurrency = 8;
    int warmup = 200;
    int pollerThreads = 8;
    Duration pacedDuration = Duration.ofSeconds(10);
    int drainN = 2000;
    String drainDelays = "1s,2s,5s,10s";
    Duration drainOutage = Duration.ofSeconds(10);
    int intakeBacklog = 4000;
    double intakePace;
    List<String> intakeCandidates = new ArrayList<>(List.of("shipped"));
    List<Integer> memorySizes = new ArrayList<>(List.of(1_000, 3_000));
    List<Integer> agingSizes = new ArrayList<>(List.of(10_000, 50_000, 100_000));
    Set<String> scenarios = new LinkedHashSet<>(DEFAULT_SCENARIOS);
    String jfr;
    Path config = Path.of("config.yml");
    Path results = Path.of("bench", "results");
    Duration waitLimit = Duration.ofMinutes(10);
    boolean wedgeProbe;
    boolean patchTestServer;
    int wedgeThreads = 16;
    int wedgeN = 5000;
    /** The embedded engines to run every scenario on, one after the other in this run. */
    List<String> engines =
            new ArrayList<>(List.of(TemporalCli.find(System.getenv()).isPresent() ? "dev-server" : "in-process"));
    /** The engine of the pass under way. */
    String engine = engines.get(0);

    /** The postgres-server engine's Temporal server binary, its SQL tool beside it; null: where go install puts it. */
    Path temporalServer;

    Path jar = Path.of("service", "target", "relaybox.jar");
    int drillEvents = 400;
    int drillOrders = 200;

    static final String USAGE = """
            java -jar bench/target/relaybox-bench.jar [options]

              --n N                 items per throughput scenario (default 1000)
              --concurrency C       concurrent HTTP clients / producers / JDBC threads (default 8)
              --warmup W            warm-up requests before measuring (default 200)
              --poller-threads P    threads of the hand-rolled SKIP LOCKED poller (default 8)
              --paced-seconds S     length of each paced (half-rate) run (default 10)
              --drain-n N           rows in the backlog-drain scenario (default 2000; 10000 adds about 8 minutes)
              --drain-delays LIST   retry schedule during the drain, e.g. 1s,2s,5s,10s (default)
              --drain-outage S      seconds the receiver stays down (default 10; must be shorter than the schedule)
              --intake-backlog N    rows in the intake-under-load backlog (default 4000)
              --intake-pace R       requests/s of the paced intake (default: half the first candidate's wrk peak)
              --intake-candidates L worker bounds to compare in intake-under-load, separated by ';': a label, or
                                    label:key=value,key=value (config overrides); default: shipped
              --memory-sizes LIST   waiting workflows to measure at (default 1000,3000; 1000,10000 adds about 6 minutes)
              --memory-100k         also measure at 100000 waiting workflows (about 15 minutes more)
              --aging-sizes LIST    events after which the aging scenario measures (default 10000,50000,100000)
              --only LIST           scenarios to run: inbox,duplicates,durability,outbound,fanout,inbound,api,drain,memory
                                    and, only when named, intake-under-load (one Relaybox per candidate) and aging
                                    (embedded engine over 100,000 events, about 45 minutes; set
                                    TEMPORAL_EMBEDDED_RECYCLE_AFTER=0 to see it without recycling) and crash-drill
                                    (kill -9 of Relaybox from --jar mid-flight, restart on the same data directory)
                                    and workers (outbound with one worker process, then with a second from --jar)
                                    and tracing (outbound deliveries/s with tracing off and on, alternating)
                                    and roles (outbound with all roles in one process, then api,dispatcher and a
                                    worker from --jar as separate processes)
                                    and destinations (outbound to HTTP, RabbitMQ, Kafka and SQS in turn, real
                                    brokers on loopback; needs Debian's rabbitmq-server)
              --engines LIST        embedded engines to run the scenarios on, each in turn: dev-server (the Temporal
                                    CLI's server, its own process; the default when the CLI is found), in-process
                                    (the default without it), postgres-server (Temporal's real server v1.32.2 on
                                    its own PostgreSQL with SQL visibility, started by the bench: production's
                                    engine; build it first, see --temporal-server); several print a column each
              --temporal-server PATH  the postgres-server engine's server binary, the SQL tool "sql" beside it
                                    (default $(go env GOPATH)/bin/server; build both with
                                    GOTOOLCHAIN=go1.27.3 go install go.temporal.io/server/cmd/server@v1.32.2 and
                                    .../cmd/tools/sql@v1.32.2)
              --drill-events N      outbox events in the crash drill (default 400), --drill-orders N orders (200)
              --jar PATH            the service jar of the crash drill and the second worker (service/target/relaybox.jar)
              --jfr SCENARIO|all    record a JFR profile around the scenario(s) into the results directory
              --config PATH         Relaybox configuration (default config.yml)
              --results DIR         where the results file goes (default bench/results)
              --wait-minutes M      give up waiting for a scenario to finish after M minutes (default 10)
              --patch-test-server   for comparison only: make the embedded server's lock-event list O(1) (see
                                    docs/performance.md); results are then not those of Relaybox as shipped
              --wedge-probe         only start --wedge-n bare workflows from --wedge-threads threads at once and
                                    watch for a stall (default 5000 from 16); dumps threads if it stalls

            DATABASE_URL / TEMPORAL_ADDRESS (and the production tokens and SHOP_WEBHOOK_SECRET) switch the
            embedded PostgreSQL / Temporal off, as for the service itself.
            """;

    static Options parse(String[] args) {
        Options o = new Options();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                value = arg.substring(eq + 1);
                arg = arg.substring(0, eq);
            }
            switch (arg) {
                case "--help", "-h" -> {
                    System.out.println(USAGE);
                    System.exit(0);
                }
                case "--memory-100k" -> o.memorySizes.add(100_000);
                case "--wedge-probe" -> o.wedgeProbe = true;
                case "--patch-test-server" -> o.patchTestServer = true;
                default -> {
                    if (value == null) {
                        if (i + 1 >= args.length) {
                            throw new IllegalArgumentException(arg + " needs a value\n\n" + USAGE);
                        }
                        value = args[++i];
                    }
                    o.set(arg, value);
                }
            }
        }
        if (o.n < 10 || o.concurrency < 1 || o.drainN < 1) {
            throw new IllegalArgumentException("--n must be at least 10, --concurrency and --drain-n at least 1");
        }
        return o;
    }

    private void set(String name, String value) {
        switch (name) {
            case "--n" -> n = Integer.parseInt(value);
            case "--concurrency" -> concurrency = Integer.parseInt(value);
            case "--warmup" -> warmup = Integer.parseInt(value);
            case "--poller-threads" -> pollerThreads = Integer.parseInt(value);
            case "--paced-seconds" -> pacedDuration = Duration.ofSeconds(Long.parseLong(value));
            case "--drain-n" -> drainN = Integer.parseInt(value);
            case "--drain-delays" -> drainDelays = value;
            case "--drain-outage" -> drainOutage = Duration.ofSeconds(Long.parseLong(value));
            case "--intake-backlog" -> intakeBacklog = Integer.parseInt(value);
            case "--intake-pace" -> intakePace = Double.parseDouble(value);
            case "--intake-candidates" -> {
                intakeCandidates = new ArrayList<>();
                for (String candidate : value.split(";")) {
                    IntakeUnderLoadScenario.Candidate.parse(candidate);
                    intakeCandidates.add(candidate.trim());
                }
            }
            case "--memory-sizes" -> {
                memorySizes = new ArrayList<>();
                for (String size : value.split(",")) {
                    memorySizes.add(Integer.parseInt(size.trim()));
                }
            }
            case "--aging-sizes" -> {
                agingSizes = new ArrayList<>();
                for (String size : value.split(",")) {
                    agingSizes.add(Integer.parseInt(size.trim()));
                }
            }
            case "--only" -> {
                scenarios = new LinkedHashSet<>();
                for (String s : value.split(",")) {
                    if (!SCENARIOS.contains(s.trim())) {
                        throw new IllegalArgumentException("unknown scenario " + s + "; expected " + SCENARIOS);
                    }
                    scenarios.add(s.trim());
                }
            }
            case "--jfr" -> jfr = value;
            case "--engines" -> {
                engines = new ArrayList<>();
                for (String e : value.split(",")) {
                    if (!ENGINES.contains(e.trim())) {
                        throw new IllegalArgumentException("unknown engine " + e + "; expected " + ENGINES);
                    }
                    engines.add(e.trim());
                }
                engine = engines.get(0);
            }
            case "--temporal-server" -> temporalServer = Path.of(value);
            case "--jar" -> jar = Path.of(value);
            case "--drill-events" -> drillEvents = Integer.parseInt(value);
            case "--drill-orders" -> drillOrders = Integer.parseInt(value);
            case "--config" -> config = Path.of(value);
            case "--results" -> results = Path.of(value);
            case "--wait-minutes" -> waitLimit = Duration.ofMinutes(Long.parseLong(value));
            case "--wedge-threads" -> wedgeThreads = Integer.parseInt(value);
            case "--wedge-n" -> wedgeN = Integer.parseInt(value);
            default -> throw new IllegalArgumentException("unknown option " + name + "\n\n" + USAGE);
        }
    }

    /** The drain schedule in seconds, to check that the outage is shorter than it. */
    long drainScheduleSeconds() {
        long total = 0;
        for (String delay : drainDelays.split(",")) {
            total += io.dropwizard.util.Duration.parse(delay.trim()).toSeconds();
        }
        return total;
    }

    boolean profiles(String scenario) {
        return jfr != null && (jfr.equals("all") || jfr.equals(scenario));
    }

    String describe() {
        return "--n " + n + " --concurrency " + concurrency + " --warmup " + warmup + " --poller-threads "
                + pollerThreads
                + " --paced-seconds " + pacedDuration.toSeconds() + " --drain-n " + drainN + " --drain-delays "
                + drainDelays + " --drain-outage " + drainOutage.toSeconds() + " --memory-sizes "
                + memorySizes.stream()
                        .map(String::valueOf)
                        .reduce((a, b) -> a + "," + b)
                        .orElse("")
                + (scenarios.contains("intake-under-load")
                        ? " --intake-backlog " + intakeBacklog
                                + (intakePace > 0 ? " --intake-pace " + intakePace : "")
                                + " --intake-candidates '"
                                + String.join(";", intakeCandidates) + "'"
                        : "")
                + (scenarios.contains("aging")
                        ? " --aging-sizes "
                                + agingSizes.stream()
                                        .map(String::valueOf)
                                        .reduce((a, b) -> a + "," + b)
                                        .orElse("")
                        : "")
                + " --engines " + String.join(",", engines)
                + (scenarios.contains("crash-drill")
                        ? " --drill-events " + drillEvents + " --drill-orders " + drillOrders
                        : "")
                + " --only " + String.join(",", scenarios) + (patchTestServer ? " --patch-test-server" : "");
    }
}
