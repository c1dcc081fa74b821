package dev.relaybox.activities;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jdbi.v3.core.Jdbi;

/**
 * One row of the fault suite's table (docs/faults.md): what a drill put in, and what the real receiver or database
 * saw once the fault had passed. Every figure is counted from ids, never assumed: an event is delivered when the
 * receiver (or the entities table) saw it, duplicated when it saw it more than once, lost when it was neither seen
 * nor dead-lettered. Each drill prints its row as a line starting {@value #PREFIX}, then asserts the targets.
 */
public record FaultFigures(
        String drill,
        String test,
        int in,
        int delivered,
        int lost,
        int duplicated,
        int deadLettered,
        int wronglyDeadLettered) {
    /** What {@code grep} finds in a build's output: the rest of the line is a Markdown table row. */
    public static final String PREFIX = "FAULT-FIGURES ";

    /**
     * @param in the ids of the events (or deliveries) the drill put in
     * @param seen every delivery or application the receiver saw, one id per time it saw it
     * @param deadLettered the ids that ended as dead letters
     * @param rightlyDeadLettered those that the drill meant to be dead-lettered (a receiver that never recovers)
     */
    public static FaultFigures count(
            String drill,
            Class<?> test,
            Collection<String> in,
            Collection<String> seen,
            Collection<String> deadLettered,
            Collection<String> rightlyDeadLettered) {
        Set<String> events = new HashSet<>(in);
        Map<String, Integer> times = new HashMap<>();
        seen.stream().filter(events::contains).forEach(id -> times.merge(id, 1, Integer::sum));
        Set<String> dead = new HashSet<>(deadLettered);
        dead.retainAll(events);
        Set<String> lost = new HashSet<>(events);
        lost.removeAll(times.keySet());
        lost.removeAll(dead);
        Set<String> wrongly = new HashSet<>(dead);
        wrongly.removeAll(rightlyDeadLettered);
        return new FaultFigures(
                drill,
                test.getSimpleName(),
                events.size(),
                times.size(),
                lost.size(),
                (int) times.values().stream().filter(n -> n > 1).count(),
                dead.size(),
                wrongly.size());
    }

    /** As {@link #count}, for a drill where nothing is meant to be dead-lettered. */
    public static FaultFigures count(
            String drill,
            Class<?> test,
            Collection<String> in,
            Collection<String> seen,
            Collection<String> deadLettered) {
        return count(drill, test, in, seen, deadLettered, List.of());
    }

    /** How drills name an outbound delivery: its outbox id (the receiver's {@code webhook-id}) and endpoint name. */
    public static String delivery(Object outboxId, String endpoint) {
        return outboxId + " to " + endpoint;
    }

    /**
     * Every dead letter in the database, named as drills name what they put in: an outbound delivery as
     * {@link #delivery}, an inbound event by its partner event id, a row that never started by its id.
     */
    public static List<String> deadLetters(Jdbi jdbi) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT coalesce(v.outbox_id::text || ' to ' || e.name, i.partner_event_id, d.reference::text)
                          FROM dead_letters d
                          LEFT JOIN deliveries v ON d.source = 'OUTBOX' AND v.id = d.reference
                          LEFT JOIN endpoints e ON e.id = v.endpoint_id
                          LEFT JOIN webhook_inbox i ON d.source = 'INBOX' AND i.id = d.reference""").mapTo(String.class).list());
    }

    /**
     * The inbound events the entities took, by partner event id, once per transition: an aggregate whose version is
     * higher than the number of events applied to it took one of them twice (counted against its latest).
     */
    public static List<String> appliedInbound(Jdbi jdbi) {
        Map<String, List<String>> applied = new LinkedHashMap<>();
        Map<String, Integer> versions = new HashMap<>();
        jdbi.useHandle(h -> h.createQuery("""
                        SELECT e.aggregate_type || ':' || e.aggregate_id AS aggregate, e.version, i.partner_event_id
                          FROM entities e
                          JOIN webhook_inbox i ON i.aggregate_type = e.aggregate_type AND i.aggregate_id = e.aggregate_id
                         WHERE i.status = 'PROCESSED' AND i.outcome = 'APPLIED'
                         ORDER BY i.processed_at""").mapToMap().forEach(row -> {
            String aggregate = (String) row.get("aggregate");
            applied.computeIfAbsent(aggregate, a -> new ArrayList<>()).add((String) row.get("partner_event_id"));
            versions.put(aggregate, ((Number) row.get("version")).intValue());
        }));
        List<String> seen = new ArrayList<>();
        applied.forEach((aggregate, events) -> {
            seen.addAll(events);
            for (int extra = events.size(); extra < versions.get(aggregate); extra++) {
                seen.add(events.get(events.size() - 1));
            }
        });
        return seen;
    }

    /** Prints the row, for the table; returns this for the assertions. */
    public FaultFigures print() {
        System.out.println(PREFIX + row());
        return this;
    }

    /** The Markdown table row: drill, test, in, delivered/applied, lost, duplicated, dead-lettered, wrongly. */
    public String row() {
        return "| " + drill + " | `" + test + "` | " + in + " | " + delivered + " | " + lost + " | " + duplicated
                + " | " + deadLettered + " | " + wronglyDeadLettered + " |";
    }

    /** The targets: nothing lost, nothing delivered or applied twice, nothing dead-lettered that should not be. */
    public FaultFigures assertTargets() {
        assertThat(lost).as("%s: events lost", drill).isZero();
        assertThat(duplicated)
                .as("%s: events delivered or applied more than once", drill)
                .isZero();
        assertThat(wronglyDeadLettered)
                .as("%s: events dead-lettered wrongly", drill)
                .isZero();
        return this;
    }

    /**
     * The targets for a drill that kills a process while it sends: a receiver may get a {@code webhook-id} a second
     * time (at least once, as the README promises; it deduplicates on the id), so duplicates are counted but
     * allowed. Nothing lost and nothing dead-lettered wrongly still hold.
     */
    public FaultFigures assertTargetsAtLeastOnce() {
        assertThat(lost).as("%s: events lost", drill).isZero();
        assertThat(wronglyDeadLettered)
                .as("%s: events dead-lettered wrongly", drill)
                .isZero();
        return this;
    }
}
