-- A broker's confirmation of a publish (RabbitMQ, Kafka, SQS) is an attempt's success as a 2xx is an HTTP
-- request's; it has no status code, so it is recorded here. Counted wherever a 2xx is (health, charts, the log).
ALTER TABLE delivery_attempts ADD COLUMN broker_confirmed boolean NOT NULL DEFAULT false;

-- Publishes confirmed before this column: to a broker destination, with neither a status code nor an error.
UPDATE delivery_attempts a SET broker_confirmed = true
  FROM deliveries d JOIN endpoints e ON e.id = d.endpoint_id
 WHERE d.id = a.delivery_id AND e.destination IS NOT NULL AND a.status_code IS NULL AND a.error IS NULL;
