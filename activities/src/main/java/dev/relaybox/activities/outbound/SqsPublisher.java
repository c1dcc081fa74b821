package dev.relaybox.activities.outbound;

import static dev.relaybox.activities.outbound.BrokerAnswers.confirmed;
import static dev.relaybox.activities.outbound.BrokerAnswers.permanent;
import static dev.relaybox.activities.outbound.BrokerAnswers.retryable;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.apache.hc.client5.http.DnsResolver;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;
import software.amazon.awssdk.services.sqs.model.SendMessageRequest;

/**
 * Sends webhooks to SQS queues: one message per attempt, its attributes the message's headers; a FIFO queue's
 * message is grouped by the event's aggregate id and deduplicated by its {@code webhook-id}. SQS's answer with a
 * message id is the attempt's 2xx. A queue that cannot be reached, throttles or fails (5xx) is a failed attempt,
 * retried on the schedule; a queue that does not exist, refused credentials or a message SQS refuses (any other 4xx)
 * dead-letter at once. One client per queue host, region and key, kept open between attempts; every connection goes
 * to an address the policy allows, however the name resolves.
 */
final class SqsPublisher {
    private static final int FORBIDDEN = 403;

    private final DeliverySettings settings;
    private final EndpointUrlPolicy urlPolicy;
    private final Map<String, SqsClient> clients = new ConcurrentHashMap<>();

    SqsPublisher(DeliverySettings settings, EndpointUrlPolicy urlPolicy) {
        this.settings = settings;
        this.urlPolicy = urlPolicy;
    }

    WebhookSender.Sent publish(String url, Destination.Sqs destination, BrokerMessage message) {
        long started = System.nanoTime();
        SendMessageRequest.Builder request = SendMessageRequest.builder()
                .queueUrl(url)
                .messageBody(new String(message.body(), StandardCharsets.UTF_8))
                .messageAttributes(message.headers().entrySet().stream()
                        .collect(Collectors.toMap(
                                Map.Entry::getKey,
                                h -> MessageAttributeValue.builder()
                                        .dataType("String")
                                        .stringValue(h.getValue())
                                        .build())));
        if (Destination.Sqs.fifo(url)) {
            request.messageGroupId(message.key()).messageDeduplicationId(message.webhookId());
        }
        try {
            client(URI.create(url), destination).sendMessage(request.build());
            return confirmed(started);
        } catch (QueueDoesNotExistException e) {
            return permanent(started, "queue " + url + " does not exist");
        } catch (AwsServiceException e) {
            String answer =
                    "SQS answered " + e.statusCode() + " " + e.awsErrorDetails().errorCode() + ": "
                            + e.awsErrorDetails().errorMessage();
            if (e.isThrottlingException() || e.statusCode() >= 500) {
                return retryable(started, StorableText.of(answer));
            }
            return permanent(
                    started, StorableText.of(e.statusCode() == FORBIDDEN ? "the queue refused: " + answer : answer));
        } catch (SdkException e) {
            for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
                if (cause instanceof EndpointUrlPolicy.RefusedAddressException refused) {
                    return permanent(started, StorableText.of(refused.getMessage()));
                }
            }
            return retryable(started, StorableText.of("could not send: " + e.getMessage()));
        }
    }

    private SqsClient client(URI queue, Destination.Sqs destination) {
        URI endpoint = URI.create(queue.getScheme() + "://" + queue.getRawAuthority());
        // Credentials in the key: changed keys make a new client at once.
        String key = String.join(
                "\n",
                endpoint.toString(),
                destination.region(),
                destination.accessKeyId(),
                destination.secretAccessKey());
        return clients.computeIfAbsent(
                key,
                k -> SqsClient.builder()
                        .endpointOverride(endpoint)
                        .region(Region.of(destination.region()))
                        .credentialsProvider(credentials(destination))
                        .httpClient(Apache5HttpClient.builder()
                                .connectionTimeout(settings.connectTimeout())
                                .socketTimeout(settings.requestTimeout())
                                .dnsResolver(new CheckedResolver(EndpointUrlPolicy.port(queue)))
                                .build())
                        .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry())
                                .apiCallTimeout(settings.requestTimeout()))
                        .build());
    }

    /** Resolves a queue's host to the addresses the policy allows, or refuses it. */
    private final class CheckedResolver implements DnsResolver {
        private final int port;

        CheckedResolver(int port) {
            this.port = port;
        }

        @Override
        public InetAddress[] resolve(String host) throws UnknownHostException {
            return urlPolicy.connectableAddresses(host, port).toArray(InetAddress[]::new);
        }

        @Override
        public String resolveCanonicalHostname(String host) {
            return host;
        }
    }

    private static AwsCredentialsProvider credentials(Destination.Sqs destination) {
        if (destination.accessKeyId() == null) {
            return DefaultCredentialsProvider.builder().build();
        }
        return StaticCredentialsProvider.create(
                AwsBasicCredentials.create(destination.accessKeyId(), destination.secretAccessKey()));
    }
}
