package dev.relaybox.activities.inbound;

import java.util.Base64;
import java.util.HexFormat;

/** Decoding of signature text that came from outside: malformed input is null, never an exception. */
final class Encodings {
    private Encodings() {}

    static byte[] hex(String text) {
        try {
            return HexFormat.of().parseHex(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    static byte[] base64(String text) {
        try {
            return Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
