-- A broker's confirmation of a publish (RabbitMQ, Kafka, SQS) is an attempt's success as a 2xx is an HTTP
-- request's; it has no status code, so it is recorded here. Counted wherever a 2xx is (health, charts, the log).
ALTER TABLE delivery_attempts ADD COLUMN broker_confirmed boolean NOT NULL DEFAULT false;
