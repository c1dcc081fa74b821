package dev.relaybox.activities.outbound;

/**
 * Text from a receiver (a response excerpt, an error message) made fit for a PostgreSQL {@code text} column,
 * which refuses the NUL character: NULs and unpaired UTF-16 surrogates become U+FFFD. What a receiver sends
 * must never make Relaybox's own bookkeeping fail.
 */
final class StorableText {
    private static final char REPLACEMENT = '\uFFFD';

    private StorableText() {}

    static String of(String text) {
        if (text == null) {
            return null;
        }
        StringBuilder clean = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean pairedHigh = Character.isHighSurrogate(c)
                    && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1));
            boolean bad = c == '\u0000' || (Character.isSurrogate(c) && !pairedHigh);
            if (pairedHigh) {
                if (clean != null) {
                    clean.append(c).append(text.charAt(i + 1));
                }
                i++;
                continue;
            }
            if (bad && clean == null) {
                clean = new StringBuilder(text.length()).append(text, 0, i);
            }
            if (clean != null) {
                clean.append(bad ? REPLACEMENT : c);
            }
        }
        return clean == null ? text : clean.toString();
    }
}
