package dev.relaybox.service.api;

import dev.relaybox.service.InstalledTool;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Assertions;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The schemathesis API fuzzer ({@code st}, from PyPI; {@code .ci/run} installs it) run against a running Relaybox:
 * every operation of {@code /openapi.json} with generated valid and invalid requests, each answer checked against the
 * document. Where it is not installed, see {@link InstalledTool}.
 */
final class Schemathesis {
    static final String VERSION = "4.32.5";

    /** One failure: the operation, the fuzzer's code for the check (ST202…), and what it reported. */
    record Failure(String operation, String code, String report) {
        /**
         * One line: operation, code, the part of the request the document forbids (where one does) and the answer's
         * body, which an allowed failure's pattern is matched against.
         */
        String summary() {
            Matcher invalid = Pattern.compile("Invalid component: (.*)").matcher(report);
            Matcher body = Pattern.compile("`(\\{.*?})`").matcher(report);
            return operation + " " + code + " " + (invalid.find() ? invalid.group(1) + " " : "")
                    + (body.find() ? body.group(1) : "");
        }
    }

    private Schemathesis() {}

    /**
     * Fuzzes the operations whose path matches {@code pathRegex} as the holder of {@code token}, a bounded run
     * (examples per operation, a fixed seed); the failures it found.
     */
    static List<Failure> run(String openApiUrl, String token, String pathRegex, Path reports) {
        Path junit = reports.resolve("junit.xml");
        List<String> command = List.of(
                InstalledTool.require(
                                "SCHEMATHESIS_CLI",
                                "st",
                                "pip install schemathesis==" + VERSION + ", or name its st in" + " SCHEMATHESIS_CLI")
                        .toString(),
                "--no-color",
                "run",
                openApiUrl,
                "--header",
                "Authorization: Bearer " + token,
                "--include-path-regex",
                pathRegex,
                "--checks",
                "all",
                "--max-examples",
                "10",
                // The same requests every run: a failure is the service's, never the draw's.
                "--seed",
                "1",
                "--generation-deterministic",
                "--workers",
                "1",
                "--report",
                "junit",
                "--report-junit-path",
                junit.toString());
        try {
            // Any file it leaves goes beside its report, not into the source tree.
            Process fuzzer = new ProcessBuilder(command)
                    .directory(reports.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(reports.resolve("schemathesis.log").toFile())
                    .start();
            if (!fuzzer.waitFor(5, TimeUnit.MINUTES)) {
                fuzzer.destroyForcibly();
                Assertions.fail("schemathesis did not finish within 5 minutes; see " + reports);
            }
            if (!Files.exists(junit)) {
                Assertions.fail("schemathesis wrote no report (exit " + fuzzer.exitValue() + "): "
                        + Files.readString(reports.resolve("schemathesis.log")));
            }
            return failures(junit);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static List<Failure> failures(Path junit) {
        try {
            var document =
                    DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(junit.toFile());
            List<Failure> failures = new ArrayList<>();
            NodeList cases = document.getElementsByTagName("testcase");
            for (int i = 0; i < cases.getLength(); i++) {
                Element testCase = (Element) cases.item(i);
                NodeList found = testCase.getElementsByTagName("failure");
                for (int j = 0; j < found.getLength(); j++) {
                    Element failure = (Element) found.item(j);
                    failures.add(new Failure(
                            testCase.getAttribute("name"), failure.getAttribute("message"), failure.getTextContent()));
                }
            }
            return failures;
        } catch (Exception e) {
            throw new IllegalStateException("could not read " + junit, e);
        }
    }
}
