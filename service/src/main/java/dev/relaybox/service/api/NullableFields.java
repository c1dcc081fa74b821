package dev.relaybox.service.api;

import com.fasterxml.jackson.databind.JavaType;
import io.swagger.v3.core.converter.AnnotatedType;
import io.swagger.v3.core.converter.ModelConverter;
import io.swagger.v3.core.converter.ModelConverterContext;
import io.swagger.v3.oas.models.media.Schema;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Says in the OpenAPI document which fields may be null, so that a generated client can trust it: a record component
 * of a reference type (a Java object, which Jackson writes as {@code null} when it is) is nullable unless the contract
 * requires it ({@code @NotNull}, {@code @NotBlank}, {@code @NotEmpty}, or required in the schema); a primitive never
 * is. A nullable value takes {@code "null"} among its types; a nullable reference becomes {@code anyOf} the
 * referenced schema and {@code null}, unless that schema admits any value. A {@code @NotBlank} text says what that means
 * ({@link OpenApiDocument#NOT_BLANK}).
 */
final class NullableFields implements ModelConverter {
    @Override
    public Schema resolve(AnnotatedType type, ModelConverterContext context, Iterator<ModelConverter> chain) {
        Schema<?> resolved = chain.hasNext() ? chain.next().resolve(type, context, chain) : null;
        Class<?> raw = rawClass(type.getType());
        if (resolved == null || raw == null || !raw.isRecord()) {
            return resolved;
        }
        Schema<?> definition = resolved.getProperties() != null
                ? resolved
                : resolved.get$ref() == null ? null : context.getDefinedModels().get(schemaName(resolved.get$ref()));
        if (definition == null || definition.getProperties() == null) {
            return resolved;
        }
        List<String> required = definition.getRequired() == null ? List.of() : definition.getRequired();
        for (RecordComponent component : raw.getRecordComponents()) {
            Schema<?> property = definition.getProperties().get(component.getName());
            if (property != null
                    && property.getPattern() == null
                    && component.getAccessor().isAnnotationPresent(NotBlank.class)) {
                property.setPattern(OpenApiDocument.NOT_BLANK);
            }
            if (property != null
                    && !component.getType().isPrimitive()
                    && !required.contains(component.getName())
                    && !requiredByValidation(component.getAccessor())) {
                definition.getProperties().put(component.getName(), nullable(property, context));
            }
        }
        return resolved;
    }

    private static boolean requiredByValidation(Method accessor) {
        return accessor.isAnnotationPresent(NotNull.class)
                || accessor.isAnnotationPresent(NotBlank.class)
                || accessor.isAnnotationPresent(NotEmpty.class);
    }

    private static Schema<?> nullable(Schema<?> property, ModelConverterContext context) {
        // A reference to a schema of any value (a JsonNode's) takes null already, or beside the types its field
        // narrows it to; wrapping it in anyOf makes generators emit a type named AnyOf that they never define.
        if (property.get$ref() != null
                && !admitsAnything(context.getDefinedModels().get(schemaName(property.get$ref())))) {
            return new Schema<>().anyOf(List.of(property, new Schema<>().types(Set.of("null"))));
        }
        Set<String> types = new LinkedHashSet<>();
        if (property.getTypes() != null) {
            types.addAll(property.getTypes());
        } else if (property.getType() != null) {
            types.add(property.getType());
        }
        if (!types.isEmpty()) {
            types.add("null");
            property.setTypes(types);
        }
        return property;
    }

    private static String schemaName(String ref) {
        return ref.replaceFirst("^#/components/schemas/", "");
    }

    private static boolean admitsAnything(Schema<?> schema) {
        return schema != null
                && schema.getType() == null
                && schema.getTypes() == null
                && schema.getProperties() == null
                && schema.getAnyOf() == null
                && schema.getOneOf() == null
                && schema.getAllOf() == null;
    }

    private static Class<?> rawClass(Type type) {
        if (type instanceof Class<?> plain) {
            return plain;
        }
        if (type instanceof JavaType java) {
            return java.getRawClass();
        }
        if (type instanceof ParameterizedType parameterized && parameterized.getRawType() instanceof Class<?> plain) {
            return plain;
        }
        return null;
    }
}
