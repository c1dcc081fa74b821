package dev.relaybox.service.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.Schema;
import dev.relaybox.activities.catalog.EventSchemas;
import dev.relaybox.store.EventTypeStore.Definition;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What an OpenAPI 3.1 document written elsewhere gives the catalog: its webhooks, their components copied in. */
class WebhookDefinitionsTest {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final ObjectMapper JSON = new ObjectMapper();

    private static final String DOCUMENT = """
            openapi: 3.1.0
            info: {title: Shop, version: "1"}
            webhooks:
              invoice.paid:
                post:
                  description: An invoice was paid
                  deprecated: true
                  requestBody:
                    content:
                      application/json:
                        schema: {$ref: '#/components/schemas/InvoicePaid'}
                        examples:
                          paid: {value: {invoiceId: "7", billedTo: {city: Oslo}}}
                  responses: {"200": {description: ok}}
            components:
              schemas:
                InvoicePaid:
                  type: object
                  required: [invoiceId, billedTo]
                  properties:
                    invoiceId: {type: string}
                    billedTo: {$ref: '#/components/schemas/Address'}
                Address:
                  type: object
                  required: [city]
                  properties:
                    city: {type: string}
                    previous: {$ref: '#/components/schemas/Address'}
            """;

    @Test
    void aWebhookWithComponentReferencesBecomesASelfContainedSchema() throws Exception {
        List<Definition> definitions = WebhookDefinitions.read(YAML.readTree(DOCUMENT));

        assertThat(definitions).hasSize(1);
        Definition paid = definitions.get(0);
        assertThat(paid.name()).isEqualTo("invoice.paid");
        assertThat(paid.description()).isEqualTo("An invoice was paid");
        assertThat(paid.deprecated()).isTrue();
        JsonNode schema = JSON.readTree(paid.schema());
        assertThat(schema.at("/properties/billedTo/$ref").asText()).isEqualTo("#/$defs/Address");
        assertThat(schema.at("/$defs/Address/properties/previous/$ref").asText())
                .isEqualTo("#/$defs/Address");

        EventSchemas schemas = new EventSchemas();
        Schema compiled = schemas.compile(schema);
        assertThat(compiled.validate(JSON.readTree(paid.example()))).isEmpty();
        assertThat(compiled.validate(JSON.readTree("{\"invoiceId\": \"7\", \"billedTo\": {}}")))
                .isNotEmpty();
    }

    @Test
    void aDocumentWithoutOpenApi31WebhooksIsRefusedSayingWhy() throws Exception {
        assertThatThrownBy(() -> WebhookDefinitions.read(YAML.readTree("openapi: 3.0.3\npaths: {}")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("OpenAPI 3.1");
        assertThatThrownBy(() -> WebhookDefinitions.read(YAML.readTree("openapi: 3.1.0\npaths: {}")))
                .hasMessageContaining("no webhooks");
        assertThatThrownBy(() -> WebhookDefinitions.read(YAML.readTree("openapi: 3.1.0\nwebhooks: {a: {get: {}}}")))
                .hasMessageContaining("webhook a has no post operation");
    }
}
