package dev.relaybox.store;

/** Which direction a dead letter came from: an outbox event's delivery or an inbox event. */
public enum DeadLetterSource {
    OUTBOX,
    INBOX
}
