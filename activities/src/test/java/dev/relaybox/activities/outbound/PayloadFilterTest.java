package dev.relaybox.activities.outbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relaybox.activities.outbound.PayloadFilterSyntax.InvalidFilter;
import java.util.Collections;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PayloadFilterTest {
    static final String ORDER = """
            {"amount": 250, "currency": "EUR", "customer": {"country": "DE", "vip": null},
             "tags": ["b2b"], "note": "1/2 ~ half"}""";

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"path\": \"/currency\", \"equals\": \"EUR\"}                  | true",
                "{\"path\": \"/currency\", \"equals\": \"USD\"}                  | false",
                "{\"path\": \"/amount\", \"equals\": 250.0}                      | true",
                "{\"path\": \"/tags\", \"equals\": [\"b2b\"]}                    | true",
                "{\"path\": \"/tags/0\", \"equals\": \"b2b\"}                    | true",
                "{\"path\": \"/missing\", \"equals\": null}                      | false",
                "{\"path\": \"/customer/vip\", \"equals\": null}                 | true",
                "{\"path\": \"/customer/country\", \"in\": [\"AT\", \"DE\"]}     | true",
                "{\"path\": \"/customer/country\", \"in\": [\"FR\"]}             | false",
                "{\"path\": \"/customer/vip\", \"exists\": true}                 | true",
                "{\"path\": \"/coupon\", \"exists\": true}                       | false",
                "{\"path\": \"/coupon\", \"exists\": false}                      | true",
                "{\"path\": \"/amount\", \"gt\": 250}                            | false",
                "{\"path\": \"/amount\", \"gte\": 250}                           | true",
                "{\"path\": \"/amount\", \"lt\": 1000.5}                         | true",
                "{\"path\": \"/amount\", \"lte\": 249.99}                        | false",
                "{\"path\": \"/currency\", \"gt\": 1}                            | false",
                "{\"path\": \"/coupon\", \"lt\": 1}                              | false",
                "{\"all\": [{\"path\": \"/amount\", \"gte\": 100}, {\"path\": \"/currency\", \"equals\": \"EUR\"}]} | true",
                "{\"all\": [{\"path\": \"/amount\", \"gte\": 100}, {\"path\": \"/currency\", \"equals\": \"USD\"}]} | false",
                "{\"any\": [{\"path\": \"/amount\", \"gte\": 1000}, {\"path\": \"/currency\", \"equals\": \"EUR\"}]} | true",
                "{\"any\": [{\"path\": \"/amount\", \"gte\": 1000}, {\"path\": \"/currency\", \"equals\": \"USD\"}]} | false",
                "{\"not\": {\"path\": \"/customer/country\", \"equals\": \"DE\"}}  | false",
                "{\"path\": \"\", \"exists\": true}                              | true"
            })
    void matchesThePayloadAsDocumented(String filter, boolean matches) {
        assertThat(read(filter).matches(PayloadFilterSyntax.data(ORDER))).isEqualTo(matches);
    }

    @Test
    void escapedPointerSegmentsNameKeysWithSlashesAndTildes() {
        assertThat(read("{\"path\": \"/a~1b/c~0d\", \"equals\": 1}")
                        .matches(PayloadFilterSyntax.data("{\"a/b\": {\"c~d\": 1}}")))
                .isTrue();
    }

    @Test
    void anEmptyObjectIsNoFilter() {
        assertThat(PayloadFilterSyntax.read(PayloadFilterSyntax.data("{}"))).isEmpty();
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "[]                                                    | must be an object",
                "{\"equals\": 1}                                       | needs \"path\"",
                "{\"path\": 3, \"equals\": 1}                          | needs \"path\"",
                "{\"path\": \"amount\", \"equals\": 1}                 | is not a JSON Pointer",
                "{\"path\": \"/a\"}                                    | exactly one operator",
                "{\"path\": \"/a\", \"equals\": 1, \"gt\": 0}          | exactly one operator",
                "{\"path\": \"/a\", \"matches\": \"x.*\"}              | unknown operator \"matches\"",
                "{\"path\": \"/a\", \"GT\": 1}                         | unknown operator \"GT\"",
                "{\"path\": \"/a\", \"gt\": \"10\"}                    | give a number",
                "{\"path\": \"/a\", \"exists\": \"yes\"}               | true or false",
                "{\"path\": \"/a\", \"in\": []}                        | array of 1 to 100",
                "{\"path\": \"/a\", \"in\": \"DE\"}                    | array of 1 to 100",
                "{\"all\": []}                                         | filter.all must be a non-empty array",
                "{\"any\": [{\"path\": \"/a\", \"gt\": 1}, 7]}         | filter.any[1] must be an object",
                "{\"all\": [{\"path\": \"/a\", \"gt\": 1}], \"not\": {}} | exactly one of all, any or not",
                "{\"not\": {\"not\": {\"not\": {\"not\": {\"not\": {\"not\": {\"not\": {\"not\": {\"path\": \"/a\", \"exists\": true}}}}}}}}} | deeper than 8"
            })
    void refusesABadFilterWithItsReason(String filter, String reason) {
        assertThatThrownBy(() -> read(filter)).isInstanceOf(InvalidFilter.class).hasMessageContaining(reason);
    }

    @Test
    void refusesMoreConditionsThanTheLimit() {
        String many = "{\"any\": [" + String.join(", ", Collections.nCopies(65, "{\"path\": \"/a\", \"exists\": true}"))
                + "]}";
        assertThatThrownBy(() -> read(many)).isInstanceOf(InvalidFilter.class).hasMessageContaining("at most 64");
    }

    private static PayloadFilter read(String json) {
        return PayloadFilterSyntax.read(PayloadFilterSyntax.data(json)).orElseThrow();
    }
}
