package dev.relaybox.workflows.inbound;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class InboxStateTest {
    @Test
    void decisionsMoveOnlyUnfinishedRowsAndOnlyAReplayReopensAQuarantinedOne() {
        assertThat(InboxState.PROCESSED.from()).containsExactly(InboxState.RECEIVED, InboxState.DEFERRED);
        assertThat(InboxState.DEFERRED.from()).containsExactly(InboxState.RECEIVED, InboxState.DEFERRED);
        assertThat(InboxState.QUARANTINED.from()).containsExactly(InboxState.RECEIVED, InboxState.DEFERRED);
        assertThat(InboxState.RECEIVED.from()).containsExactly(InboxState.QUARANTINED);
        assertThat(InboxState.unfinished()).containsExactly(InboxState.RECEIVED, InboxState.DEFERRED);
        assertThat(Arrays.stream(InboxState.values()).filter(InboxState::finished))
                .containsExactly(InboxState.PROCESSED, InboxState.QUARANTINED);
    }

    @Test
    void workflowsShowTheSearchValuesOperatorsAlreadySearchFor() {
        // Recorded histories and saved Temporal UI queries hold these values: they must not change with the enum.
        assertThat(Arrays.stream(InboxState.values()).map(InboxState::searchValue))
                .containsExactly("pending", "deferred", "processed", "dead_lettered");
    }
}
