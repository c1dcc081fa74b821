package dev.relaybox.service.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import java.util.List;
import org.junit.jupiter.api.Test;

class PayloadDiffTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aChangedNestedValueIsOneChangeAtItsPointer() {
        List<PayloadDiff.Change> changes = diff(
                "{\"type\": \"order.paid\", \"data\": {\"orderId\": \"4 2\", \"amount\": 12}}",
                "{\"type\": \"order.paid\", \"data\": {\"orderId\": \"42\", \"amount\": 12}}");

        assertThat(changes).containsExactly(change("/data/orderId", "\"4 2\"", "\"42\""));
    }

    @Test
    void addedAndRemovedFieldsHaveOnlyTheSideThatExists() {
        List<PayloadDiff.Change> changes = diff("{\"a\": 1, \"gone\": true}", "{\"a\": 1, \"new\": {\"x\": 1}}");

        assertThat(changes)
                .containsExactly(
                        new PayloadDiff.Change("/new", null, tree("{\"x\": 1}")),
                        new PayloadDiff.Change("/gone", tree("true"), null));
    }

    @Test
    void jsonNullIsAValueNotAnAbsence() {
        List<PayloadDiff.Change> changes = diff("{\"a\": null}", "{\"a\": 1, \"b\": null}");

        assertThat(changes)
                .containsExactly(
                        new PayloadDiff.Change("/a", NullNode.getInstance(), tree("1")),
                        new PayloadDiff.Change("/b", null, NullNode.getInstance()));
        assertThat(JSON.valueToTree(changes).toString())
                .isEqualTo("[{\"path\":\"/a\",\"from\":null,\"to\":1},{\"path\":\"/b\",\"to\":null}]");
    }

    @Test
    void arraysOfOneLengthCompareByIndexOthersAsAWhole() {
        assertThat(diff("{\"items\": [1, 2, 3]}", "{\"items\": [1, 5, 3]}"))
                .containsExactly(change("/items/1", "2", "5"));
        assertThat(diff("{\"items\": [1, 2]}", "{\"items\": [1, 2, 3]}"))
                .containsExactly(change("/items", "[1, 2]", "[1, 2, 3]"));
    }

    @Test
    void aValueOfAnotherTypeIsReplacedWhole() {
        assertThat(diff("{\"data\": {\"id\": 1}}", "{\"data\": \"1\"}"))
                .containsExactly(change("/data", "{\"id\": 1}", "\"1\""));
    }

    @Test
    void fieldNamesAreEscapedAsJsonPointerSays() {
        assertThat(diff("{\"a/b\": {\"c~d\": 1}}", "{\"a/b\": {\"c~d\": 2}}"))
                .containsExactly(change("/a~1b/c~0d", "1", "2"));
    }

    @Test
    void equalPayloadsHaveNoChangesWhateverTheirFieldOrder() {
        assertThat(diff("{\"a\": 1, \"b\": [true]}", "{\"b\": [true], \"a\": 1}"))
                .isEmpty();
    }

    private static List<PayloadDiff.Change> diff(String before, String after) {
        return PayloadDiff.between(tree(before), tree(after));
    }

    private static PayloadDiff.Change change(String path, String from, String to) {
        return new PayloadDiff.Change(path, tree(from), tree(to));
    }

    private static JsonNode tree(String json) {
        try {
            return JSON.readTree(json);
        } catch (Exception e) {
            throw new IllegalArgumentException(json, e);
        }
    }
}
