package dev.relaybox.store;

import java.util.UUID;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/**
 * {@code endpoints.headers}: the static headers an endpoint's requests carry, as checked by {@code EndpointHeaders},
 * and {@code endpoints.destination}: a broker's settings and credentials, as {@code Destination} writes them; sealed
 * like the signing secret since they are usually credentials. Read with the endpoint and with each attempt.
 */
public interface EndpointHeadersStore {
    /** Replaces the endpoint's headers; {@code stored} null removes them. */
    @SqlUpdate("UPDATE endpoints SET headers = :headers, updated_at = now() WHERE id = :id")
    boolean setHeaders(@Bind("id") UUID endpointId, @Bind("headers") @Sealed String stored);

    /** Replaces where the endpoint's deliveries go; {@code stored} null makes it an HTTP endpoint. */
    @SqlUpdate("UPDATE endpoints SET destination = :destination, updated_at = now() WHERE id = :id")
    boolean setDestination(@Bind("id") UUID endpointId, @Bind("destination") @Sealed String stored);
}
