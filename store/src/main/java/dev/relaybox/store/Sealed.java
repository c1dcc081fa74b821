package dev.relaybox.store;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.jdbi.v3.core.qualifier.Qualifier;

/**
 * A String column stored sealed by the {@link SecretBox} of {@link SealedColumns}: bound sealed, mapped opened. On a
 * record component or a store method's parameter; the SQL beside it reads and writes the ciphertext as it is.
 */
@Qualifier
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.PARAMETER, ElementType.FIELD, ElementType.METHOD, ElementType.RECORD_COMPONENT})
public @interface Sealed {}
