package dev.relaybox.bench;

import com.google.protobuf.ByteString;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryRequest;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryResponse;
import java.util.List;
import java.util.UUID;

/**
 * What one event costs, between two snapshots: this JVM's CPU (Relaybox, the bench's load and, on the in-process
 * engine, the engine too), the engine's own processes when it has them (the dev server; the postgres-server engine's server and its PostgreSQL), PostgreSQL commits and rows
 * written (the whole server's, the bench's own enqueue transactions included), and history events of a sample of the
 * workflows.
 */
final class Costs {
    private static final int SAMPLE = 20;

    record Snapshot(double jvmSeconds, double engineSeconds, double postgresSeconds, long commits, long rowsWritten) {}

    /**
     * Per event: CPU milliseconds in the JVM, in the engine process (NaN without one) and in PostgreSQL's processes,
     * commits, rows written.
     */
    record PerEvent(double jvmMs, double engineMs, double postgresMs, double commits, double rowsWritten) {
        /** Every process's CPU: what one event costs the machine. */
        double totalMs() {
            return jvmMs + (Double.isNaN(engineMs) ? 0 : engineMs) + postgresMs;
        }
    }

    private Costs() {}

    static Snapshot now(Context ctx) {
        long[] database = ctx.jdbi()
                .withHandle(h -> h.createQuery("SELECT xact_commit, tup_inserted + tup_updated + tup_deleted AS rows "
                                + "FROM pg_stat_database WHERE datname = current_database()")
                        .map((rs, c) -> new long[] {rs.getLong("xact_commit"), rs.getLong("rows")})
                        .one());
        return new Snapshot(
                Cpu.jvmSeconds(),
                ctx.relaybox.engineProcesses().cpuSeconds(),
                Cpu.postgresSeconds(),
                database[0],
                database[1]);
    }

    static PerEvent between(Context ctx, Snapshot from, Snapshot to, int events) {
        double engine = ctx.relaybox.engineProcesses().isPresent()
                ? (to.engineSeconds() - from.engineSeconds()) * 1000 / events
                : Double.NaN;
        return new PerEvent(
                (to.jvmSeconds() - from.jvmSeconds()) * 1000 / events,
                engine,
                (to.postgresSeconds() - from.postgresSeconds()) * 1000 / events,
                (to.commits() - from.commits()) / (double) events,
                (to.rowsWritten() - from.rowsWritten()) / (double) events);
    }

    /** Mean history length of the first workflows of {@code ids} (at most {@value #SAMPLE}). */
    static double historyEvents(Context ctx, List<String> workflowIds) {
        List<String> sample = workflowIds.subList(0, Math.min(SAMPLE, workflowIds.size()));
        long total = 0;
        for (String id : sample) {
            byte[] token = new byte[0];
            do {
                GetWorkflowExecutionHistoryResponse page = ctx.relaybox
                        .temporalStubs()
                        .blockingStub()
                        .getWorkflowExecutionHistory(GetWorkflowExecutionHistoryRequest.newBuilder()
                                .setNamespace(ctx.relaybox.namespace())
                                .setExecution(WorkflowExecution.newBuilder().setWorkflowId(id))
                                .setNextPageToken(ByteString.copyFrom(token))
                                .build());
                total += page.getHistory().getEventsCount();
                token = page.getNextPageToken().toByteArray();
            } while (token.length > 0);
        }
        return sample.isEmpty() ? Double.NaN : total / (double) sample.size();
    }

    /** Mean history length of the delivery workflows of the first outbox rows whose aggregate id starts with {@code prefix-}. */
    static double outboxHistoryEvents(Context ctx, String prefix) {
        return historyEvents(
                ctx,
                ctx.jdbi()
                        .withHandle(h -> h.createQuery(
                                        "SELECT id FROM outbox_events WHERE aggregate_id LIKE :like LIMIT " + SAMPLE)
                                .bind("like", prefix + "-%")
                                .mapTo(UUID.class)
                                .map(OutboxDeliveryWorkflow::workflowId)
                                .list()));
    }

    /** The rows a scenario adds for Relaybox against its baseline. */
    static void report(
            Context ctx,
            String scenario,
            PerEvent relaybox,
            PerEvent baseline,
            double history,
            double baselineHistory,
            String baselineName) {
        Report r = ctx.report;
        r.metric(scenario, "JVM CPU ms/event", relaybox.jvmMs(), baseline.jvmMs(), baselineName);
        r.metric(scenario, "engine process CPU ms/event", relaybox.engineMs(), baseline.engineMs(), baselineName);
        r.metric(scenario, "PostgreSQL CPU ms/event", relaybox.postgresMs(), baseline.postgresMs(), baselineName);
        r.metric(scenario, "all processes CPU ms/event", relaybox.totalMs(), baseline.totalMs(), baselineName);
        r.metric(scenario, "PostgreSQL commits/event", relaybox.commits(), baseline.commits(), baselineName);
        r.metric(
                scenario,
                "PostgreSQL rows written/event",
                relaybox.rowsWritten(),
                baseline.rowsWritten(),
                baselineName);
        r.metric(scenario, "history events/workflow", history, baselineHistory, baselineName);
    }
}
