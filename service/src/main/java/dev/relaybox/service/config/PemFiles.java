package dev.relaybox.service.config;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the PEM files of a TLS configuration and says, in terms an operator can act on, why one is unusable.
 * Every failure is an {@link IllegalArgumentException} whose message starts with the setting's name.
 */
final class PemFiles {
    private static final Pattern PKCS8_KEY =
            Pattern.compile("-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");
    private static final Pattern OTHER_KEY = Pattern.compile("-----BEGIN ([A-Z ]*)PRIVATE KEY-----");

    private PemFiles() {}

    /** The certificates in a PEM file, in file order (a chain starts with its leaf). */
    static List<X509Certificate> certificates(String setting, Path file) {
        byte[] pem = read(setting, file).getBytes(StandardCharsets.ISO_8859_1);
        try {
            List<X509Certificate> certificates =
                    CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem)).stream()
                            .map(X509Certificate.class::cast)
                            .toList();
            if (certificates.isEmpty()) {
                throw new IllegalArgumentException(setting + ": " + file + " holds no PEM certificate");
            }
            return certificates;
        } catch (CertificateException e) {
            throw new IllegalArgumentException(
                    setting + ": " + file + " is not a PEM certificate file (" + e.getMessage() + ")", e);
        }
    }

    /** The unencrypted PKCS#8 private key in a PEM file, for a certificate whose public key has this algorithm. */
    static PrivateKey privateKey(String setting, Path file, String algorithm) {
        String pem = read(setting, file);
        Matcher pkcs8 = PKCS8_KEY.matcher(pem);
        if (!pkcs8.find()) {
            Matcher other = OTHER_KEY.matcher(pem);
            if (other.find() && other.group(1).startsWith("ENCRYPTED")) {
                throw new IllegalArgumentException(setting + ": " + file + " is encrypted; give an unencrypted "
                        + "key (openssl pkcs8 -topk8 -nocrypt -in " + file + " -out key.pem) and protect the file");
            }
            if (other.find(0)) {
                throw new IllegalArgumentException(setting + ": " + file + " is a traditional '" + other.group(1)
                        + "PRIVATE KEY'; convert it to PKCS#8: openssl pkcs8 -topk8 -nocrypt -in " + file
                        + " -out key.pem");
            }
            throw new IllegalArgumentException(
                    setting + ": " + file + " holds no PEM private key " + "('-----BEGIN PRIVATE KEY-----')");
        }
        try {
            byte[] der = Base64.getMimeDecoder().decode(pkcs8.group(1));
            return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    setting + ": " + file + " is not a " + algorithm + " private key matching the certificate ("
                            + e.getMessage() + ")",
                    e);
        }
    }

    /** Whether the key signs what the public key verifies: a key from another pair fails here, not at the server. */
    static boolean belongTogether(PrivateKey privateKey, PublicKey publicKey) {
        String algorithm = switch (publicKey.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "DSA" -> "SHA256withDSA";
            default -> publicKey.getAlgorithm(); // Ed25519, Ed448, EdDSA name their own signature
        };
        byte[] probe = "relaybox key pair check".getBytes(StandardCharsets.US_ASCII);
        try {
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(privateKey);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(publicKey);
            verifier.update(probe);
            return verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    private static String read(String setting, Path file) {
        try {
            return new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(setting + ": " + file + " does not exist", e);
        } catch (AccessDeniedException e) {
            throw new IllegalArgumentException(setting + ": " + file + " is not readable by this process", e);
        } catch (IOException e) {
            throw new IllegalArgumentException(setting + ": cannot read " + file + " (" + e + ")", e);
        }
    }
}
