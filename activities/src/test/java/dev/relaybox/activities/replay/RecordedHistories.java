package dev.relaybox.activities.replay;

import io.temporal.client.WorkflowClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Histories recorded by a released build, kept under {@code src/test/resources/histories/<release>/} and replayed by
 * {@link ReplayCompatibilityTest} against today's workflow code. At the release's tag, the recorders (the
 * {@code record*} methods of the {@code *WorkflowTest} classes, skipped unless {@value #RECORD_INTO} is set) write
 * them with {@code mvn -B -pl activities -am test -Dtest='*WorkflowTest#record*' -Dsurefire.failIfNoSpecifiedTests=false
 * -Drelaybox.recordHistories=$PWD/activities/src/test/resources/histories/<release>}. See docs/workflow-versions.md.
 */
public final class RecordedHistories {
    /** System property naming the directory the recorders write to. */
    public static final String RECORD_INTO = "relaybox.recordHistories";

    private RecordedHistories() {}

    /** Writes the workflow's full history as JSON, the format {@code WorkflowReplayer} reads back. */
    public static void save(WorkflowClient client, String workflowId, String fileName) {
        Path directory = Path.of(System.getProperty(RECORD_INTO));
        try {
            Files.createDirectories(directory);
            Files.writeString(
                    directory.resolve(fileName), client.fetchHistory(workflowId).toJson(true));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
