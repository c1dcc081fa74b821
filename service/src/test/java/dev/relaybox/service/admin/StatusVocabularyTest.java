package dev.relaybox.service.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.workflows.inbound.InboxState;
import dev.relaybox.workflows.outbound.DeliveryPhase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The RelayStatus values docs/operations.md lists are the ones the workflows write, read from their enums. */
class StatusVocabularyTest {
    static final Pattern LISTED =
            Pattern.compile("`RelayStatus` \\(outbound: ([a-z_|\\s]+),.*?inbound: ([a-z_|\\s]+)\\)", Pattern.DOTALL);

    @Test
    void theOperatorsGuideListsEveryStatusAWorkflowShowsAndNoOther() throws IOException {
        Matcher listed = LISTED.matcher(Files.readString(Path.of("..", "docs", "operations.md")));
        assertThat(listed.find())
                .as("the RelayStatus list in docs/operations.md")
                .isTrue();

        List<String> outbound = Arrays.stream(DeliveryPhase.values())
                .map(phase -> DeliveryPhase.overall(List.of(phase)).label())
                .distinct()
                .toList();
        List<String> inbound = Arrays.stream(InboxState.values())
                .map(InboxState::searchValue)
                .distinct()
                .toList();
        assertThat(values(listed.group(1))).containsExactlyInAnyOrderElementsOf(outbound);
        assertThat(values(listed.group(2))).containsExactlyInAnyOrderElementsOf(inbound);
    }

    private static List<String> values(String list) {
        return Stream.of(list.split("\\|")).map(String::strip).toList();
    }
}
