package dev.relaybox.service.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.ws.rs.ext.ReaderInterceptor;
import jakarta.ws.rs.ext.ReaderInterceptorContext;
import java.io.ByteArrayInputStream;
import java.io.IOException;

/**
 * Checks every request body before it is bound: larger than the limit is a 413, JSON that PostgreSQL's {@code jsonb}
 * cannot store is a 400 naming why ({@link JsonBodyReader}). Only then is the body bound to the method's validated
 * record, so no resource sees anything but storable, bounded input.
 */
public final class JsonBodyLimit implements ReaderInterceptor {
    private final JsonBodyReader jsonBodyReader;
    private final long maxBodyBytes;

    public JsonBodyLimit(ObjectMapper json, long maxBodyBytes) {
        this.jsonBodyReader = new JsonBodyReader(json);
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public Object aroundReadFrom(ReaderInterceptorContext context) throws IOException {
        byte[] bytes = context.getInputStream().readNBytes((int) Math.min(Integer.MAX_VALUE - 1, maxBodyBytes + 1));
        if (bytes.length > maxBodyBytes) {
            throw new ApiException(413, "payload_too_large", "the body is larger than " + maxBodyBytes + " bytes");
        }
        jsonBodyReader.read(bytes);
        context.setInputStream(new ByteArrayInputStream(bytes));
        return context.proceed();
    }
}
