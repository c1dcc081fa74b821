package dev.relaybox.service.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;

class StartLimitsTest {

    @Test
    void aTemporalNotSetUpYetRefusesNoRowForGood() {
        // What a new, empty cluster answers until `relaybox temporal setup` has registered the search attributes:
        // with SQL visibility (PostgreSQL, the dev server's SQLite), and with Elasticsearch.
        StatusRuntimeException sqlVisibility = new StatusRuntimeException(Status.INVALID_ARGUMENT.withDescription(
                "Namespace default has no mapping defined for search attribute RelayDirection"));
        StatusRuntimeException elasticsearch = new StatusRuntimeException(
                Status.INVALID_ARGUMENT.withDescription("search attribute RelayDirection is not defined"));

        assertThat(StartLimits.refusedForGood(new RuntimeException("start failed", sqlVisibility)))
                .isEmpty();
        assertThat(StartLimits.refusedForGood(new RuntimeException("start failed", elasticsearch)))
                .isEmpty();
        assertThat(StartLimits.whyNotStarted(new RuntimeException("start failed", sqlVisibility)))
                .startsWith("Temporal is not set up for Relaybox (relaybox temporal setup")
                .endsWith("no mapping defined for search attribute RelayDirection");
    }

    @Test
    void anInvalidArgumentOfTheRowItselfIsRefusedForGood() {
        StatusRuntimeException tooLong = new StatusRuntimeException(
                Status.INVALID_ARGUMENT.withDescription("search attribute RelayAggregate exceeds size limit 2048"));

        assertThat(StartLimits.refusedForGood(tooLong))
                .hasValueSatisfying(reason -> assertThat(reason).contains("exceeds size limit"));
    }
}
