package dev.relaybox.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.DataSize;
import jakarta.validation.constraints.NotNull;
import java.util.List;

/** The producer API's limits. */
public final class OutboxFactory {
    @NotNull
    @JsonProperty
    private DataSize maxPayloadSize = DataSize.kibibytes(256);

    /** Aggregate types {@code POST /outbox} accepts; empty accepts any. */
    @NotNull
    @JsonProperty
    private List<String> aggregateTypes = List.of();

    public long maxPayloadBytes() {
        return maxPayloadSize.toBytes();
    }

    public List<String> getAggregateTypes() {
        return aggregateTypes;
    }
}
