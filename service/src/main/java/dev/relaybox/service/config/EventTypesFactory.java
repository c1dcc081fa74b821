package dev.relaybox.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import java.util.List;

/**
 * The event-type catalog's settings: whether a type the catalog does not hold may be published, and the types
 * config.yml declares, created or revised at start-up.
 */
public final class EventTypesFactory {
    /** True: an event of a type not in the catalog is published unchecked. False: refused (422, or dead-lettered). */
    @JsonProperty
    private boolean allowUnknown = true;

    @Valid
    @NotNull
    @JsonProperty
    private List<EventTypeSeed> catalog = List.of();

    public boolean isAllowUnknown() {
        return allowUnknown;
    }

    public List<EventTypeSeed> getCatalog() {
        return catalog;
    }
}
