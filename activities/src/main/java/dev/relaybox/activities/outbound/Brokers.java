package dev.relaybox.activities.outbound;

/** Publishes to an endpoint's broker destination, whichever kind it is, under one address policy. */
final class Brokers {
    private final RabbitPublisher rabbitMq;
    private final KafkaPublisher kafka;
    private final SqsPublisher sqs;

    Brokers(DeliverySettings settings, EndpointUrlPolicy urlPolicy) {
        this.rabbitMq = new RabbitPublisher(settings, urlPolicy);
        this.kafka = new KafkaPublisher(settings, urlPolicy);
        this.sqs = new SqsPublisher(settings, urlPolicy);
    }

    WebhookSender.Sent publish(String url, Destination destination, BrokerMessage message) {
        if (destination instanceof Destination.RabbitMq rabbit) {
            return rabbitMq.publish(url, rabbit, message);
        }
        if (destination instanceof Destination.Kafka topic) {
            return kafka.publish(url, topic, message);
        }
        return sqs.publish(url, (Destination.Sqs) destination, message);
    }
}
