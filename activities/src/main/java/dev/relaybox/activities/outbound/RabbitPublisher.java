package dev.relaybox.activities.outbound;

import static dev.relaybox.activities.outbound.BrokerAnswers.confirmed;
import static dev.relaybox.activities.outbound.BrokerAnswers.permanent;
import static dev.relaybox.activities.outbound.BrokerAnswers.retryable;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AuthenticationFailureException;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.ShutdownSignalException;
import dev.relaybox.activities.RedactedUrl;
import java.io.IOException;
import java.net.URI;
import java.net.UnknownHostException;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.Date;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes webhooks to RabbitMQ exchanges: one persistent message per attempt, {@code mandatory} (a message no queue
 * takes comes back), on a channel in confirm mode; the broker's confirm is the attempt's 2xx. A refused or unconfirmed
 * publish, a broker that cannot be reached or blocks publishers (flow control) is a failed attempt, retried on the
 * schedule; an exchange that does not exist, refused credentials or a message no queue takes dead-letters at once. The
 * message carries the same body and Standard Webhooks headers as an HTTP request, so a consumer verifies it the same
 * way. One connection per broker and credentials, kept open between attempts; a channel per attempt.
 */
final class RabbitPublisher {
    private static final Logger LOG = LoggerFactory.getLogger(RabbitPublisher.class);
    private static final int NOT_FOUND = 404;
    private static final int ACCESS_REFUSED = 403;
    private static final Duration CLOSE_WAIT = Duration.ofMillis(100);

    private final DeliverySettings settings;
    private final EndpointUrlPolicy urlPolicy;
    private final Map<String, Connection> connections = new ConcurrentHashMap<>();
    /** Connections the broker is blocking (flow control), with its reason. */
    private final Map<Connection, String> blocked = new ConcurrentHashMap<>();

    RabbitPublisher(DeliverySettings settings, EndpointUrlPolicy urlPolicy) {
        this.settings = settings;
        this.urlPolicy = urlPolicy;
    }

    WebhookSender.Sent publish(String url, Destination.RabbitMq destination, BrokerMessage message) {
        long started = System.nanoTime();
        AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder()
                .contentType("application/json")
                .deliveryMode(2)
                .messageId(message.webhookId())
                .timestamp(Date.from(message.timestamp()))
                .headers(Map.copyOf(message.headers()))
                .build();
        Connection connection = null;
        Channel channel = null;
        try {
            connection = connection(url, destination);
            channel = connection.createChannel();
            AtomicBoolean returned = new AtomicBoolean();
            channel.addReturnListener(bounced -> returned.set(true));
            channel.confirmSelect();
            channel.basicPublish(
                    destination.exchange(), destination.routingKeyOrEmpty(), true, properties, message.body());
            if (!channel.waitForConfirms(settings.requestTimeout().toMillis())) {
                return retryable(started, "the broker refused the message (nack)");
            }
            if (returned.get()) {
                return permanent(
                        started,
                        "no queue is bound to exchange \"" + destination.exchange() + "\" for routing key \""
                                + destination.routingKeyOrEmpty() + "\"");
            }
            return confirmed(started);
        } catch (ShutdownSignalException e) {
            return closedBy(started, e, destination);
        } catch (IOException e) {
            if (e.getCause() instanceof ShutdownSignalException signal) {
                return closedBy(started, signal, destination);
            }
            if (e instanceof AuthenticationFailureException) {
                return permanent(started, "the broker refused the credentials");
            }
            if (e instanceof EndpointUrlPolicy.RefusedAddressException) {
                return permanent(started, StorableText.of(e.getMessage()));
            }
            if (e instanceof UnknownHostException) {
                return retryable(started, "host " + URI.create(url).getHost() + " does not resolve");
            }
            return retryable(started, "connection failed: " + e.getMessage());
        } catch (TimeoutException e) {
            String reason = connection == null ? null : blocked.get(connection);
            if (reason != null) {
                // A blocked connection reads nothing, a channel's close included: let it go, and the next attempt
                // connects again.
                connection.abort((int) CLOSE_WAIT.toMillis());
                blocked.remove(connection);
                return retryable(started, "the broker is blocking publishers (flow control: " + reason + ")");
            }
            return retryable(
                    started,
                    "the broker did not confirm within "
                            + settings.requestTimeout().toSeconds() + "s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return retryable(started, "interrupted");
        } catch (RuntimeException e) {
            LOG.warn("publish to {} failed unexpectedly", RedactedUrl.of(url), e);
            return retryable(started, "could not publish: " + e);
        } finally {
            closeQuietly(channel);
        }
    }

    /** A channel closed by the broker: 404 is an exchange that does not exist, 403 a user without the right. */
    private static WebhookSender.Sent closedBy(
            long started, ShutdownSignalException e, Destination.RabbitMq destination) {
        if (e.getReason() instanceof AMQP.Channel.Close close) {
            if (close.getReplyCode() == NOT_FOUND) {
                return permanent(started, "exchange \"" + destination.exchange() + "\" does not exist");
            }
            if (close.getReplyCode() == ACCESS_REFUSED) {
                return permanent(started, "the broker refused: " + close.getReplyText());
            }
            return retryable(started, "the broker closed the channel: " + close.getReplyText());
        }
        return retryable(started, "the broker closed the connection: " + e.getMessage());
    }

    /** The open connection to the broker with these credentials, made when there is none. */
    private Connection connection(String url, Destination.RabbitMq destination) throws IOException, TimeoutException {
        // Credentials in the key: a changed password makes a new connection at once, not at the next reconnect.
        String key = String.join("\n", url, destination.username(), destination.password());
        Connection open = connections.get(key);
        if (open != null && open.isOpen()) {
            return open;
        }
        synchronized (this) {
            open = connections.get(key);
            if (open != null && open.isOpen()) {
                return open;
            }
            Connection created = newConnection(URI.create(url), destination);
            connections.put(key, created);
            return created;
        }
    }

    private Connection newConnection(URI uri, Destination.RabbitMq destination) throws IOException, TimeoutException {
        boolean tls = "amqps".equalsIgnoreCase(uri.getScheme());
        // Resolved and checked once; a plain connection then goes to exactly what was checked, a TLS one to the name
        // its certificate must match.
        String address = urlPolicy
                .connectableAddresses(uri.getHost(), EndpointUrlPolicy.port(uri))
                .get(0)
                .getHostAddress();
        ConnectionFactory factory = new ConnectionFactory();
        try {
            factory.setUri(uri);
            if (tls) {
                // setUri alone would trust every certificate.
                factory.useSslProtocol(SSLContext.getDefault());
                factory.enableHostnameVerification();
            } else {
                factory.setHost(address);
            }
        } catch (GeneralSecurityException e) {
            throw new IOException("url is not a usable AMQP URI: " + e.getMessage(), e);
        }
        factory.setConnectionTimeout((int) settings.connectTimeout().toMillis());
        factory.setHandshakeTimeout((int) settings.requestTimeout().toMillis());
        // Opening and closing a channel wait for the broker too, never longer than an attempt may.
        factory.setChannelRpcTimeout((int) settings.requestTimeout().toMillis());
        factory.setAutomaticRecoveryEnabled(false);
        // Its reader threads must not keep a stopping process alive.
        factory.setThreadFactory(runnable -> {
            Thread thread = new Thread(runnable, "relaybox-rabbitmq");
            thread.setDaemon(true);
            return thread;
        });
        if (destination.username() != null) {
            factory.setUsername(destination.username());
            factory.setPassword(destination.password());
        }
        Connection connection = factory.newConnection("relaybox");
        connection.addBlockedListener(reason -> blocked.put(connection, reason), () -> blocked.remove(connection));
        connection.addShutdownListener(cause -> blocked.remove(connection));
        return connection;
    }

    private static void closeQuietly(AutoCloseable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (Exception e) {
            // already closed, or the broker is gone: nothing left to release
        }
    }
}
