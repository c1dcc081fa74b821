package dev.relaybox.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * docker-compose.yml read the way docker-compose reads it: a service's environment and ports after
 * {@code ${VAR}}, {@code ${VAR:-default}} and {@code ${VAR:?message}} interpolation from given variables.
 */
public final class ComposeFile {
    public static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    public static final Path PATH = REPO.resolve("docker-compose.yml");

    private static final Pattern VARIABLE =
            Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\\}|\\$\\$");

    private final JsonNode root;

    private ComposeFile(JsonNode root) {
        this.root = root;
    }

    public static ComposeFile read() {
        try {
            return new ComposeFile(new ObjectMapper(new YAMLFactory()).readTree(PATH.toFile()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public JsonNode service(String name) {
        JsonNode service = root.path("services").path(name);
        if (service.isMissingNode()) {
            throw new IllegalArgumentException("docker-compose.yml has no service " + name);
        }
        return service;
    }

    /** The environment compose gives the service, uninterpolated ({@code ${VAR:-default}} as written). */
    public Map<String, String> rawEnvironment(String service) {
        Map<String, String> environment = new LinkedHashMap<>();
        service(service)
                .path("environment")
                .fields()
                .forEachRemaining(field ->
                        environment.put(field.getKey(), field.getValue().asText()));
        return environment;
    }

    /** The environment compose gives the service when the shell has {@code variables} set. */
    public Map<String, String> environment(String service, Map<String, String> variables) {
        Map<String, String> environment = new LinkedHashMap<>();
        rawEnvironment(service).forEach((name, value) -> environment.put(name, interpolate(value, variables)));
        return environment;
    }

    /** The service's port mappings as written, e.g. {@code 127.0.0.1:7233:7233}. */
    public List<String> ports(String service) {
        List<String> ports = new ArrayList<>();
        service(service).path("ports").forEach(port -> ports.add(port.asText()));
        return ports;
    }

    /** {@code value} with its {@code ${...}} references resolved as docker-compose resolves them. */
    public static String interpolate(String value, Map<String, String> variables) {
        Matcher matcher = VARIABLE.matcher(value);
        StringBuilder result = new StringBuilder();
        while (matcher.find()) {
            matcher.appendReplacement(result, Matcher.quoteReplacement(resolve(matcher, variables)));
        }
        matcher.appendTail(result);
        return result.toString();
    }

    private static String resolve(Matcher matcher, Map<String, String> variables) {
        if (matcher.group(1) == null) {
            return "$";
        }
        String name = matcher.group(1);
        String operator = matcher.group(2);
        String argument = matcher.group(3);
        String value = variables.get(name);
        boolean unset = value == null;
        boolean empty = unset || value.isEmpty();
        if (operator == null) {
            return unset ? "" : value;
        }
        boolean missing = operator.startsWith(":") ? empty : unset;
        if (operator.endsWith("?") && missing) {
            throw new IllegalArgumentException("docker-compose refuses: " + name + " " + argument);
        }
        return missing && operator.endsWith("-") ? argument : value;
    }
}
