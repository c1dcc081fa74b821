package dev.relaybox.activities.outbound;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.store.TestDatabase;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

class StorableTextTest {

    @Test
    void nulAndUnpairedSurrogatesBecomeReplacementCharactersAndPairsStay() {
        assertThat(StorableText.of("ok\u0000done")).isEqualTo("ok\uFFFDdone");
        assertThat(StorableText.of("lone \ud800 high, lone \udc00 low, end \ud83d"))
                .isEqualTo("lone \uFFFD high, lone \uFFFD low, end \uFFFD");
        assertThat(StorableText.of("emoji \ud83d\ude00 stays")).isEqualTo("emoji \ud83d\ude00 stays");
        assertThat(StorableText.of("plain")).isEqualTo("plain");
        assertThat(StorableText.of(null)).isNull();
    }

    @Test
    void storedTextIsAcceptedByPostgres() {
        Jdbi jdbi = TestDatabase.fresh();
        String stored = jdbi.withHandle(h -> h.createQuery("SELECT CAST(:text AS text)")
                .bind("text", StorableText.of("a\u0000b\ud800c"))
                .mapTo(String.class)
                .one());
        assertThat(stored).isEqualTo("a\uFFFDb\uFFFDc");
    }
}
