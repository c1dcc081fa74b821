package dev.relaybox.service.admin;

import dev.relaybox.service.auth.Caller;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.jdbi.v3.core.Jdbi;

/** {@code GET /admin/overview}: how much work is open, at a glance. */
@Tag(name = "admin")
@Path("/admin/overview")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(Caller.ADMIN)
public final class AdminOverviewResource {
    private final Jdbi jdbi;

    public AdminOverviewResource(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    public record Overview(long undispatchedOutbox, long retryingDeliveries, long deferredInbox, long openDeadLetters) {}

    @GET
    @Operation(operationId = "overview", summary = "Counts of open work: undispatched, retrying, deferred, dead letters")
    public Overview overview() {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT (SELECT count(*) FROM outbox_events WHERE dispatched_at IS NULL) AS undispatched_outbox,
                               (SELECT count(*) FROM deliveries WHERE status = 'RETRYING') AS retrying_deliveries,
                               (SELECT count(*) FROM webhook_inbox WHERE status = 'DEFERRED') AS deferred_inbox,
                               (SELECT count(*) FROM dead_letters WHERE resolved_at IS NULL) AS open_dead_letters
                        """)
                .map((rs, ctx) -> new Overview(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)))
                .one());
    }
}
