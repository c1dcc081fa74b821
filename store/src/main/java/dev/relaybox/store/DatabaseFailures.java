package dev.relaybox.store;

import dev.relaybox.workflows.DatabaseCalls;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.Set;
import java.util.function.Supplier;
import org.jdbi.v3.core.ConnectionException;

/**
 * Tells a database that cannot be reached (refused or timed-out connections, a server shutting down or starting,
 * no connection slot) from every other failure. Workflows wait out the first kind for as long as it lasts and
 * bound the retries of the second.
 */
public final class DatabaseFailures {
    // 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 53300 too_many_connections.
    private static final Set<String> UNAVAILABLE_STATES = Set.of("57P01", "57P02", "57P03", "53300");

    private DatabaseFailures() {}

    /**
     * Runs {@code work}; a failure to reach the database leaves as a retryable {@link ApplicationFailure} of type
     * {@link DatabaseCalls#DATABASE_UNAVAILABLE}, anything else as it was thrown.
     */
    public static <T> T translating(Supplier<T> work) {
        try {
            return work.get();
        } catch (RuntimeException e) {
            if (unavailable(e)) {
                throw ApplicationFailure.newFailureWithCause(
                        "the database is unavailable: " + rootMessage(e), DatabaseCalls.DATABASE_UNAVAILABLE, e);
            }
            throw e;
        }
    }

    public static void translating(Runnable work) {
        translating(() -> {
            work.run();
            return null;
        });
    }

    static boolean unavailable(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof ConnectionException
                    || cause instanceof SQLTransientConnectionException
                    || cause instanceof IOException) {
                return true;
            }
            if (cause instanceof SQLException sql
                    && sql.getSQLState() != null
                    && (sql.getSQLState().startsWith("08") || UNAVAILABLE_STATES.contains(sql.getSQLState()))) {
                return true;
            }
        }
        return false;
    }

    private static String rootMessage(Throwable e) {
        Throwable cause = e;
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause.getMessage();
    }
}
