package dev.relaybox.store;

import java.util.UUID;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/**
 * {@code endpoints.payload_filter}: which payloads an endpoint receives, as {@code PayloadFilterSyntax} accepted it.
 * The fan-out reads it ({@code DeliveryAttemptStore#createDeliveries}); an event it does not match gets no delivery.
 */
public interface EndpointFilterStore {
    /** Replaces the endpoint's filter; {@code filter} null removes it. */
    @SqlUpdate("UPDATE endpoints SET payload_filter = CAST(:filter AS jsonb), updated_at = now() WHERE id = :id")
    boolean setPayloadFilter(@Bind("id") UUID endpointId, @Bind("filter") String filter);
}
