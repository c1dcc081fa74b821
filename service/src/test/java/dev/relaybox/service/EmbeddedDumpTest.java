package dev.relaybox.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** A dump holds every row, secrets' ciphertexts and partner payloads among them: only its owner may read it. */
class EmbeddedDumpTest {
    @Test
    void theDumpFileIsReadableByItsOwnerOnlyEvenWhenItExistedBefore() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/pg_dump")) || System.getenv("CI") != null);
        Path directory = ScratchDirectories.create("relaybox-dump");
        Path fresh = directory.resolve("fresh.sql");
        Path existing = Files.createFile(
                directory.resolve("existing.sql"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--")));
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().start()) {
            EmbeddedDump.dump("pg_dump", postgres.getPort(), fresh);
            EmbeddedDump.dump("pg_dump", postgres.getPort(), existing);
        }

        for (Path dump : new Path[] {fresh, existing}) {
            assertThat(Files.readString(dump)).contains("PostgreSQL database dump");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dump)))
                    .as(dump.toString())
                    .isEqualTo("rw-------");
        }
    }
}
