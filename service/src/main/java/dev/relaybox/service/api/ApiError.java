package dev.relaybox.service.api;

/** The one error shape of every 4xx and 5xx answer: a stable code and a sentence for people. */
public record ApiError(String error, String reason) {}
