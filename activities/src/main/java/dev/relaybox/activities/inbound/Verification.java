package dev.relaybox.activities.inbound;

/**
 * The outcome of checking one inbound webhook's signature.
 *
 * @param valid whether the request may be processed
 * @param reason when refused, a sentence fit for the 401 body; when valid, which secret matched, so that
 *     operators can tell when a partner has stopped using an old secret
 */
public record Verification(boolean valid, String reason) {

    static Verification accepted(int secretNumber, int secretCount) {
        return new Verification(true, "signature matches secret " + secretNumber + " of " + secretCount);
    }

    static Verification refused(String reason) {
        return new Verification(false, reason);
    }
}
