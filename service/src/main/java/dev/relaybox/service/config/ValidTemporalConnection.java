package dev.relaybox.service.config;

import static java.lang.annotation.ElementType.TYPE;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;

/**
 * The {@code temporal} section can connect as it says ({@link TemporalConnection#from(TemporalFactory)}): checked
 * with the rest of the configuration, so a missing key or certificate file stops start-up before anything runs,
 * with the reason {@code TemporalConnection} gives.
 */
@Target(TYPE)
@Retention(RUNTIME)
@Constraint(validatedBy = ValidTemporalConnection.Check.class)
public @interface ValidTemporalConnection {
    String message() default "cannot connect to Temporal as configured";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};

    final class Check implements ConstraintValidator<ValidTemporalConnection, TemporalFactory> {
        @Override
        public boolean isValid(TemporalFactory temporal, ConstraintValidatorContext context) {
            if (temporal.getAddress() == null || temporal.getTls() == null) {
                return true; // reported by their own constraints
            }
            try {
                TemporalConnection.from(temporal);
                return true;
            } catch (IllegalArgumentException e) {
                context.disableDefaultConstraintViolation();
                // A message is a template: braces, dollars and backslashes in paths must stay literal.
                String literal = e.getMessage().replaceAll("([\\\\{}$])", "\\\\$1");
                context.buildConstraintViolationWithTemplate(literal).addConstraintViolation();
                return false;
            }
        }
    }
}
