package dev.relaybox.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The results table (value, baseline, ratio per metric) and the notes under it, as markdown. */
final class Report {
    record Row(String scenario, String metric, String value, String baseline, String ratio, String baselineName) {}

    private final List<Row> rows = new ArrayList<>();
    private final Map<String, List<String>> notes = new LinkedHashMap<>();

    /** A metric where higher is better or lower is better; the ratio is always Relaybox / baseline. */
    void metric(String scenario, String metric, double value, double baseline, String baselineName) {
        rows.add(new Row(
                scenario,
                metric,
                number(value),
                Double.isNaN(baseline) ? "–" : number(baseline),
                Double.isNaN(baseline) || baseline == 0 || Double.isNaN(value)
                        ? "–"
                        : String.format(Locale.ROOT, "%.2f", value / baseline),
                baselineName));
        System.out.printf(
                Locale.ROOT,
                "  %-28s %-34s %12s  %12s  %6s  (%s)%n",
                scenario,
                metric,
                number(value),
                Double.isNaN(baseline) ? "–" : number(baseline),
                rows.get(rows.size() - 1).ratio(),
                baselineName);
    }

    /** A check or count with no baseline to compare with. */
    void fact(String scenario, String metric, String value, String expected) {
        rows.add(new Row(scenario, metric, value, expected, "–", expected.equals("–") ? "" : "expected"));
        System.out.printf(Locale.ROOT, "  %-28s %-34s %12s  %12s%n", scenario, metric, value, expected);
    }

    void note(String scenario, String text) {
        notes.computeIfAbsent(scenario, k -> new ArrayList<>()).add(text);
        System.out.println("  note: " + text);
    }

    String markdown() {
        StringBuilder out = new StringBuilder();
        out.append("| scenario | metric | Relaybox | baseline | ratio | baseline is |\n");
        out.append("|---|---|---:|---:|---:|---|\n");
        for (Row row : rows) {
            out.append("| ")
                    .append(row.scenario())
                    .append(" | ")
                    .append(row.metric())
                    .append(" | ")
                    .append(row.value())
                    .append(" | ")
                    .append(row.baseline())
                    .append(" | ")
                    .append(row.ratio())
                    .append(" | ")
                    .append(row.baselineName())
                    .append(" |\n");
        }
        if (!notes.isEmpty()) {
            out.append("\n");
            notes.forEach((scenario, lines) -> {
                out.append("**").append(scenario).append("**\n\n");
                lines.forEach(line -> out.append("- ").append(line).append("\n"));
                out.append("\n");
            });
        }
        return out.toString();
    }

    /**
     * One row per metric any pass reported, a value and a ratio column per engine: ratios within one pass (one
     * engine, its own baseline) are what compare.
     */
    static String sideBySide(List<EnginePass.Result> passes) {
        Map<String, Row[]> byMetric = new LinkedHashMap<>();
        for (int i = 0; i < passes.size(); i++) {
            for (Row row : passes.get(i).report().rows) {
                String key = row.scenario() + "|" + row.metric() + "|" + row.baselineName();
                Row[] cells = byMetric.computeIfAbsent(key, k -> new Row[passes.size()]);
                if (cells[i] == null) {
                    cells[i] = row;
                }
            }
        }
        StringBuilder out = new StringBuilder("| scenario | metric |");
        StringBuilder rule = new StringBuilder("|---|---|");
        for (EnginePass.Result pass : passes) {
            out.append(' ').append(pass.engine()).append(" | ratio |");
            rule.append("---:|---:|");
        }
        out.append(" baseline is |\n").append(rule).append("---|\n");
        byMetric.forEach((key, cells) -> {
            String[] parts = key.split("\\|", -1);
            out.append("| ").append(parts[0]).append(" | ").append(parts[1]).append(" |");
            for (Row cell : cells) {
                out.append(' ')
                        .append(cell == null ? "–" : cell.value())
                        .append(" | ")
                        .append(cell == null ? "–" : cell.ratio())
                        .append(" |");
            }
            out.append(' ').append(parts[2]).append(" |\n");
        });
        return out.toString();
    }

    static String number(double v) {
        if (Double.isNaN(v)) {
            return "–";
        }
        double abs = Math.abs(v);
        if (abs >= 1000) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (abs >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (abs >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        return String.format(Locale.ROOT, "%.2f", v);
    }
}
