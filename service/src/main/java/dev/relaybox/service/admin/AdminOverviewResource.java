package dev.relaybox.service.admin;

import dev.relaybox.service.auth.Caller;
import dev.relaybox.store.OverviewQueries;
import dev.relaybox.store.OverviewQueries.Overview;
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
    private final OverviewQueries queries;

    public AdminOverviewResource(Jdbi jdbi) {
        this.queries = jdbi.onDemand(OverviewQueries.class);
    }

    @GET
    @Operation(
            operationId = "overview",
            summary = "Counts of open work: undispatched, retrying, deferred, dead letters")
    public Overview overview() {
        return queries.overview();
    }
}
