package dev.relaybox.service.temporal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throwaway certificate authority made with the {@code openssl} command line (on every Debian machine), issuing
 * P-256 certificates valid for two days with unencrypted PKCS#8 keys ({@code -nodes}: OpenSSL 1.1 and 3), all as PEM
 * files in one directory.
 */
final class TestCertificates {
    record Issued(Path cert, Path key) {}

    private final Path dir;
    private final Path caCert;
    private final Path caKey;

    private TestCertificates(Path dir, Path caCert, Path caKey) {
        this.dir = dir;
        this.caCert = caCert;
        this.caKey = caKey;
    }

    static TestCertificates authority(Path dir, String name) {
        Path cert = dir.resolve(name + "-ca.pem");
        Path key = dir.resolve(name + "-ca.key");
        openssl(
                dir,
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-keyout",
                key.toString(),
                "-out",
                cert.toString(),
                "-days",
                "2",
                "-subj",
                "/CN=" + name + " test CA");
        return new TestCertificates(dir, cert, key);
    }

    Path caCert() {
        return caCert;
    }

    /** A server certificate for these subject alternative names, e.g. {@code DNS:localhost}, {@code IP:127.0.0.1}. */
    Issued server(String name, String... subjectAltNames) {
        return issue(name, "serverAuth", subjectAltNames);
    }

    Issued client(String name) {
        return issue(name, "clientAuth");
    }

    private Issued issue(String name, String usage, String... subjectAltNames) {
        Path cert = dir.resolve(name + ".pem");
        Path key = dir.resolve(name + ".key");
        Path request = dir.resolve(name + ".csr");
        Path extensions = dir.resolve(name + ".ext");
        try {
            List<String> lines = new ArrayList<>(List.of("extendedKeyUsage=" + usage));
            if (subjectAltNames.length > 0) {
                lines.add("subjectAltName=" + String.join(",", subjectAltNames));
            }
            Files.write(extensions, lines);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        openssl(
                dir,
                "req",
                "-new",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-keyout",
                key.toString(),
                "-out",
                request.toString(),
                "-subj",
                "/CN=" + name);
        byte[] serial = new byte[8];
        new SecureRandom().nextBytes(serial);
        openssl(
                dir,
                "x509",
                "-req",
                "-in",
                request.toString(),
                "-CA",
                caCert.toString(),
                "-CAkey",
                caKey.toString(),
                "-set_serial",
                "0x" + HexFormat.of().formatHex(serial),
                "-days",
                "2",
                "-extfile",
                extensions.toString(),
                "-out",
                cert.toString());
        return new Issued(cert, key);
    }

    static void openssl(Path dir, String... args) {
        List<String> command = new ArrayList<>(List.of("openssl"));
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed:\n" + output);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run openssl (Debian: apt-get install openssl)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
