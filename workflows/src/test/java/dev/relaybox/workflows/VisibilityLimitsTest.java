package dev.relaybox.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import io.temporal.common.converter.DefaultDataConverter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class VisibilityLimitsTest {
    @Test
    void shortValuesAndNullAreKeptAsTheyAre() {
        assertThat(VisibilityLimits.truncate("order.paid", 10)).isEqualTo("order.paid");
        assertThat(VisibilityLimits.truncate(null, 10)).isNull();
    }

    @Test
    void cutsByUtf8BytesWithoutSplittingACharacter() {
        // "é" is 2 bytes, "€" 3, "😀" 4 (a surrogate pair in Java): 10 characters are 13 chars of UTF-16.
        String value = "é€😀é€😀é€😀é";
        for (int max = 3; max < 29; max++) {
            String cut = VisibilityLimits.truncate(value, max);
            byte[] bytes = cut.getBytes(StandardCharsets.UTF_8);
            assertThat(bytes.length).as("cut to %d bytes: %s", max, cut).isLessThanOrEqualTo(max);
            // Decodes back to the same text: no half character, no lone surrogate.
            assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo(cut);
            assertThat(cut.codePoints().noneMatch(c -> Character.isSurrogate((char) c)))
                    .isTrue();
            assertThat(value).startsWith(cut.substring(0, cut.length() - 1));
            assertThat(cut).endsWith("…");
        }
        assertThat(VisibilityLimits.truncate(value, 9)).isEqualTo("é€…");
        assertThat(VisibilityLimits.truncate(value, 10)).isEqualTo("é€…");
        assertThat(VisibilityLimits.truncate(value, 12)).isEqualTo("é€😀…");
    }

    @Test
    void aKeywordOfCharactersThatNeedEscapingStaysUnderTheServerLimitEncoded() {
        String quotes = "\"\u0001".repeat(5_000);
        String keyword = VisibilityLimits.keyword(quotes);
        int encoded = DefaultDataConverter.STANDARD_INSTANCE
                .toPayload(keyword)
                .orElseThrow()
                .getData()
                .size();
        assertThat(encoded).isLessThanOrEqualTo(2048);
    }

    @Test
    void aKeywordFitsTheVarchar255ColumnsOfSqlVisibilityStores() {
        // PostgreSQL and MySQL visibility keep each Keyword attribute in a VARCHAR(255) column and refuse the
        // whole visibility write over it; 255 bytes are at most 255 characters, whatever the text.
        for (String character : List.of("a", "é", "€", "😀")) {
            for (int length = 250; length <= 260; length++) {
                String keyword = VisibilityLimits.keyword("x".repeat(length - 1) + character);
                assertThat(keyword.codePointCount(0, keyword.length()))
                        .as("characters of a %d-character value ending in %s", length, character)
                        .isLessThanOrEqualTo(255);
                assertThat(VisibilityLimits.utf8Bytes(keyword)).isLessThanOrEqualTo(255);
            }
        }
    }

    @Test
    void aBigEndpointListIsCutWithAMarkerAndFitsInOneValue() {
        List<String> names = IntStream.range(0, 200)
                .mapToObj(i -> "endpoint-" + "ü".repeat(30) + "-" + i)
                .toList();

        List<String> kept = VisibilityLimits.endpointNames(names);

        assertThat(kept.size()).isLessThanOrEqualTo(VisibilityLimits.MAX_ENDPOINT_NAMES + 1);
        String marker = kept.get(kept.size() - 1);
        assertThat(marker).isEqualTo(VisibilityLimits.moreMarker(200 - (kept.size() - 1)));
        assertThat(names).containsAll(kept.subList(0, kept.size() - 1));
        int encoded = DefaultDataConverter.STANDARD_INSTANCE
                .toPayload(kept)
                .orElseThrow()
                .getData()
                .size();
        assertThat(encoded).isLessThanOrEqualTo(VisibilityLimits.ENDPOINT_LIST_BYTES);
    }

    @Test
    void aLongEndpointNameIsCutToItsBudget() {
        List<String> kept = VisibilityLimits.endpointNames(List.of("ß".repeat(500)));
        assertThat(kept)
                .singleElement()
                .satisfies(name -> assertThat(VisibilityLimits.utf8Bytes(name))
                        .isLessThanOrEqualTo(VisibilityLimits.ENDPOINT_NAME_BYTES));
    }

    @Test
    void aSmallEndpointListIsKeptWholeAndDistinct() {
        assertThat(VisibilityLimits.endpointNames(List.of("shop", "crm", "shop")))
                .containsExactly("shop", "crm");
    }
}
