package dev.relaybox.service.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.core.server.AbstractServerFactory;
import io.dropwizard.core.server.ServerFactory;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.jersey.filter.AllowedMethodsFilter;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.Set;
import org.eclipse.jetty.ee10.servlet.ErrorPageErrorHandler;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * What the HTTP server answers by itself, before any resource (a method it does not allow, such as {@code TRACE}; a
 * path with a suspicious character; a malformed request), in the one error shape ({@link ApiError}) instead of Jetty's
 * HTML page or an empty body, whatever the method: on the server itself and through an error page on both ports'
 * contexts. A 405 names the methods the server lets through ({@code server.allowedMethods}).
 */
public final class JsonErrorPages {
    private static final String PATH = "/relaybox-error";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String allowed;

    private JsonErrorPages(Set<String> allowedMethods) {
        this.allowed = String.join(", ", allowedMethods.stream().sorted().toList());
    }

    public static void install(Environment environment, ServerFactory server) {
        JsonErrorPages pages = new JsonErrorPages(
                server instanceof AbstractServerFactory configured
                        ? configured.getAllowedMethods()
                        : AllowedMethodsFilter.DEFAULT_ALLOWED_METHODS);
        for (ServletContextHandler context :
                new ServletContextHandler[] {environment.getApplicationContext(), environment.getAdminContext()}) {
            ErrorPageErrorHandler errors = new ErrorPageErrorHandler() {
                @Override
                public boolean errorPageForMethod(String method) {
                    return true;
                }
            };
            errors.addErrorPage(ErrorPageErrorHandler.GLOBAL_ERROR_PAGE, PATH);
            context.setErrorHandler(errors);
            context.getServletHandler().addServletWithMapping(new ServletHolder(pages.new ErrorPage()), PATH);
        }
        environment
                .lifecycle()
                .addServerLifecycleListener(started -> started.setErrorHandler(pages.new ServerErrors()));
    }

    /** The body, and on a 405 the {@code Allow} header, of an error answered with {@code code}. */
    private byte[] body(int code, String message) {
        String phrase = HttpStatus.getMessage(code);
        String reason = message != null && !message.isBlank() && !message.equals(phrase)
                ? message
                : phrase.toLowerCase(Locale.ROOT);
        try {
            return JSON.writeValueAsBytes(new ApiError(ApiError.codeOf(phrase), reason));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an error body is two strings", e);
        }
    }

    /** Errors inside a context: a resource's {@code sendError}, or a method the context does not let through. */
    private final class ErrorPage extends HttpServlet {
        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
            Object status = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
            int code = status instanceof Integer given ? given : HttpServletResponse.SC_NOT_FOUND;
            Object message = request.getAttribute(RequestDispatcher.ERROR_MESSAGE);
            response.setStatus(code);
            if (code == HttpServletResponse.SC_METHOD_NOT_ALLOWED) {
                response.setHeader("Allow", allowed);
            }
            response.setContentType("application/json");
            response.getOutputStream().write(body(code, message instanceof String text ? text : null));
        }
    }

    /** Errors before any context: a request Jetty refuses as it reads it. */
    private final class ServerErrors extends ErrorHandler {
        @Override
        public boolean errorPageForMethod(String method) {
            return true;
        }

        @Override
        protected void generateResponse(
                Request request, Response response, int code, String message, Throwable cause, Callback callback) {
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
            if (code == HttpStatus.METHOD_NOT_ALLOWED_405) {
                response.getHeaders().put(HttpHeader.ALLOW, allowed);
            }
            response.write(true, ByteBuffer.wrap(body(code, message)), callback);
        }

        @Override
        public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
            fields.put(HttpHeader.CONTENT_TYPE, "application/json");
            return ByteBuffer.wrap(body(status, reason));
        }
    }
}
