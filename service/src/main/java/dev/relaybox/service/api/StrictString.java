package dev.relaybox.service.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import java.io.IOException;

/**
 * A field that takes a JSON string only: {@code "eventType": 123} is refused (400, "is not of the expected type: a
 * string") rather than turned into the text {@code "123"}, which Jackson does for every string field by default.
 * For names a client must mean; a field documented to take a number too (an aggregate id) keeps the default.
 */
public final class StrictString extends StdScalarDeserializer<String> {
    public StrictString() {
        super(String.class);
    }

    @Override
    public String deserialize(JsonParser parser, DeserializationContext context) throws IOException {
        if (parser.currentToken() == JsonToken.VALUE_STRING) {
            return parser.getText();
        }
        return (String) context.handleUnexpectedToken(String.class, parser);
    }
}
