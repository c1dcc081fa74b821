package dev.relaybox.service.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.type.LogicalType;
import java.io.IOException;

/**
 * Request bodies are read as the document types them: {@code "eventType": 123} is no string, {@code "burst": "5"} no
 * number and {@code "enabled": 0} no boolean, each a 400 saying what was expected, where Jackson by default would turn
 * one into the other. Set on the application's mapper once the configuration is read, whose YAML scalars (a numeric
 * token, an unquoted port) keep converting as before.
 */
public final class StrictTypes {
    private StrictTypes() {}

    @SuppressWarnings("deprecation") // ALLOW_COERCION_OF_SCALARS is how Jackson 2 turns off "5" -> 5 everywhere.
    public static void apply(ObjectMapper mapper) {
        mapper.configure(MapperFeature.ALLOW_COERCION_OF_SCALARS, false);
        mapper.coercionConfigFor(LogicalType.Textual)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        mapper.coercionConfigFor(LogicalType.Boolean).setCoercion(CoercionInputShape.Integer, CoercionAction.Fail);
    }

    /** A text field documented to take a whole number too (an aggregate id: {@code 42} is read as {@code "42"}). */
    public static final class TextOrWholeNumber extends StdScalarDeserializer<String> {
        public TextOrWholeNumber() {
            super(String.class);
        }

        @Override
        public String deserialize(JsonParser parser, DeserializationContext context) throws IOException {
            if (parser.currentToken() == JsonToken.VALUE_STRING
                    || parser.currentToken() == JsonToken.VALUE_NUMBER_INT) {
                return parser.getText();
            }
            return (String) context.handleUnexpectedToken(String.class, parser);
        }
    }
}
