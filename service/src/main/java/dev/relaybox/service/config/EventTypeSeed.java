package dev.relaybox.service.config;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.relaybox.store.EventTypeStore.Definition;
import io.dropwizard.validation.ValidationMethod;
import jakarta.validation.constraints.NotEmpty;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * An event type declared in config.yml, created or revised at start-up (matched by name): a changed schema becomes a
 * new version, the same one none. The schema is given inline ({@code schema}) or as a JSON or YAML file
 * ({@code schemaFile}, relative to the working directory). {@code deprecated} and {@code description}, when given,
 * are set; left out, what the admin API set stays.
 */
public record EventTypeSeed(
        @JsonProperty("name") @NotEmpty String name,
        @JsonProperty("description") String description,
        @JsonProperty("schema") JsonNode schema,
        @JsonProperty("schemaFile") String schemaFile,
        @JsonProperty("example") JsonNode example,
        @JsonProperty("deprecated") Boolean deprecated) {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    @ValidationMethod(message = "takes one of schema or schemaFile")
    @JsonIgnore
    public boolean isOneSchema() {
        return (schema == null) != (schemaFile == null);
    }

    /** The definition the catalog checks; the schema file is read now. */
    public Definition definition() {
        return new Definition(name, description, schemaText(), example == null ? null : example.toString(), deprecated);
    }

    private String schemaText() {
        if (schema != null) {
            return schema.toString();
        }
        Path file = Path.of(schemaFile);
        try {
            // YAML is a superset of JSON: one reader for both.
            return YAML.readTree(Files.readString(file)).toString();
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "event type " + name + ": cannot read schemaFile " + file.toAbsolutePath() + ": " + e.getMessage(),
                    e);
        }
    }
}
