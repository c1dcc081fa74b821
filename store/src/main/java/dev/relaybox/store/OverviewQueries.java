package dev.relaybox.store;

import dev.relaybox.workflows.inbound.InboxState;
import dev.relaybox.workflows.outbound.DeliveryStatus;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;

/**
 * Counts of open work across every row family, for the admin overview and the metrics gauges. They join (well,
 * sub-select) several tables because the question is about all of them at once; each count is one index range,
 * and reading them in one statement gives one consistent snapshot per scrape or page load.
 */
public interface OverviewQueries {

    /** What an operator sees first: work that is waiting, retrying or stuck. */
    record Overview(long undispatchedOutbox, long retryingDeliveries, long deferredInbox, long openDeadLetters) {}

    /** The open-work gauges: counts, and the age in seconds of the oldest row each dispatcher has not started. */
    record OpenWork(long openDeadLetters, long deferredInbox, double outboxLagSeconds, double inboxLagSeconds) {}

    @SqlQuery("""
            SELECT (SELECT count(*) FROM outbox_events WHERE dispatched_at IS NULL) AS undispatched_outbox,
                   (SELECT count(*) FROM deliveries WHERE status = :retrying) AS retrying_deliveries,
                   (SELECT count(*) FROM webhook_inbox WHERE status = :deferred) AS deferred_inbox,
                   (SELECT count(*) FROM dead_letters WHERE resolved_at IS NULL) AS open_dead_letters""")
    @RegisterConstructorMapper(Overview.class)
    Overview overview(@Bind("retrying") DeliveryStatus retrying, @Bind("deferred") InboxState deferred);

    default Overview overview() {
        return overview(DeliveryStatus.RETRYING, InboxState.DEFERRED);
    }

    @SqlQuery("""
            SELECT (SELECT count(*) FROM dead_letters WHERE resolved_at IS NULL) AS open_dead_letters,
                   (SELECT count(*) FROM webhook_inbox WHERE status = :deferred) AS deferred_inbox,
                   (SELECT COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)
                      FROM outbox_events WHERE dispatched_at IS NULL) AS outbox_lag_seconds,
                   (SELECT COALESCE(EXTRACT(EPOCH FROM now() - min(received_at)), 0)
                      FROM webhook_inbox WHERE dispatched_at IS NULL) AS inbox_lag_seconds""")
    @RegisterConstructorMapper(OpenWork.class)
    OpenWork openWork(@Bind("deferred") InboxState deferred);

    default OpenWork openWork() {
        return openWork(InboxState.DEFERRED);
    }
}
