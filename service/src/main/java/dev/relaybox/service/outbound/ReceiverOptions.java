package dev.relaybox.service.outbound;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.activities.outbound.EndpointHeaders;
import dev.relaybox.activities.outbound.PayloadFilterSyntax;
import dev.relaybox.service.api.ApiException;
import dev.relaybox.store.EndpointFilterStore;
import dev.relaybox.store.EndpointHeadersStore;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * What a create or change asks of the receiver's side: its payload filter and static headers, checked (422 with the
 * reason) before anything is written. A field not given is left as it is.
 *
 * @param filter the filter as stored (null: none); written when {@code filterGiven}
 * @param headers the headers as given; null when not given
 */
record ReceiverOptions(boolean filterGiven, String filter, Map<String, String> headers) {
    static ReceiverOptions checked(JsonNode filter, Map<String, String> headers) {
        try {
            return new ReceiverOptions(
                    filter != null,
                    PayloadFilterSyntax.stored(filter),
                    headers == null ? null : EndpointHeaders.check(headers));
        } catch (PayloadFilterSyntax.InvalidFilter e) {
            throw new ApiException(422, "invalid_filter", e.getMessage());
        } catch (EndpointHeaders.InvalidHeaders e) {
            throw new ApiException(422, "invalid_headers", e.getMessage());
        }
    }

    /** In the transaction that creates or changes the endpoint. */
    void write(Handle h, UUID endpointId) {
        if (filterGiven) {
            h.attach(EndpointFilterStore.class).setPayloadFilter(endpointId, filter);
        }
        if (headers != null) {
            h.attach(EndpointHeadersStore.class).setHeaders(endpointId, EndpointHeaders.stored(headers));
        }
    }
}
