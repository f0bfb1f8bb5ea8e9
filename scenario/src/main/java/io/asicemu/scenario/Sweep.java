package io.asicemu.scenario;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Runs one scenario under several settings and puts the results side by side: named variants (each a DCQCN setting
 * and config overrides) and/or a grid over config fields (for example WRED Kmin × Kmax × Pmax). Each run writes its
 * own folder; the sweep writes {@code sweep.csv} and {@code sweep.html} (a table and bar charts).
 *
 * @param scenario the base scenario file, relative to the sweep file
 * @param variants named runs: {@code label}, optional {@code dcqcn}, optional {@code config} overrides
 * @param grid config fields to vary: {@code "switch|TABLE|key|field"} → values; every combination runs
 */
public record Sweep(String scenario, List<Variant> variants, Map<String, List<String>> grid) {
    /** One named run: {@code config} maps {@code "switch|TABLE|key|field"} to the value to set. */
    public record Variant(String label, Object dcqcn, Map<String, String> config) {}

    /** A run's headline numbers. */
    public record Row(String label, Scenario.Result result) {}

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    public static Sweep load(Path file) {
        try {
            return MAPPER.readValue(Files.readString(file), Sweep.class);
        } catch (JsonMappingException e) {
            throw new ScenarioException(file + ": " + e.getOriginalMessage() + " at " + e.getPathReference());
        } catch (IOException e) {
            throw new ScenarioException(file + ": " + e.getMessage());
        }
    }

    public static List<Row> run(Path sweepFile, Path outDir) {
        Sweep sweep = load(sweepFile);
        Path baseDir = sweepFile.toAbsolutePath().getParent();
        if (sweep.scenario() == null) {
            throw new ScenarioException(sweepFile + ": scenario is required");
        }
        ScenarioSpec base = ScenarioSpec.load(baseDir.resolve(sweep.scenario()));
        Path scenarioDir = baseDir.resolve(sweep.scenario()).getParent();
        List<Variant> runs = new ArrayList<>(sweep.variants() == null ? List.of() : sweep.variants());
        runs.addAll(gridVariants(sweep.grid()));
        if (runs.isEmpty()) {
            throw new ScenarioException(sweepFile + ": give variants or a grid");
        }
        List<Row> rows = new ArrayList<>();
        for (Variant v : runs) {
            if (v.label() == null || !v.label().matches("[A-Za-z0-9_.,=+-]+")) {
                throw new ScenarioException(
                        sweepFile + ": variant label \"" + v.label() + "\" must be letters, digits and _ . , = + -");
            }
            ScenarioSpec spec = new ScenarioSpec(
                    base.name() + " [" + v.label() + "]",
                    base.seed(),
                    base.durationUs(),
                    base.sampleUs(),
                    v.dcqcn() == null ? base.dcqcn() : v.dcqcn(),
                    base.host(),
                    base.switches(),
                    base.hosts(),
                    base.links(),
                    base.flows(),
                    List.of(),
                    base.captures());
            Scenario.Result result = Scenario.run(
                    spec, scenarioDir, outDir.resolve(v.label()), v.config() == null ? Map.of() : v.config());
            rows.add(new Row(v.label(), result));
        }
        write(rows, outDir);
        return rows;
    }

    private static List<Variant> gridVariants(Map<String, List<String>> grid) {
        List<Variant> out = new ArrayList<>();
        if (grid == null || grid.isEmpty()) {
            return out;
        }
        List<String> fields = new ArrayList<>(grid.keySet());
        int[] index = new int[fields.size()];
        while (true) {
            Map<String, String> config = new LinkedHashMap<>();
            StringBuilder label = new StringBuilder();
            for (int i = 0; i < fields.size(); i++) {
                String value = grid.get(fields.get(i)).get(index[i]);
                config.put(fields.get(i), value);
                String field = fields.get(i).substring(fields.get(i).lastIndexOf('|') + 1);
                label.append(label.isEmpty() ? "" : ",")
                        .append(field)
                        .append('=')
                        .append(value);
            }
            out.add(new Variant(label.toString(), null, config));
            int i = fields.size() - 1;
            while (i >= 0 && ++index[i] == grid.get(fields.get(i)).size()) {
                index[i] = 0;
                i--;
            }
            if (i < 0) {
                return out;
            }
        }
    }

    private static void write(List<Row> rows, Path outDir) {
        StringBuilder csv = new StringBuilder("variant,complete,end_us,fct_p50_us,fct_p99_us,fct_p999_us,"
                + "ecn_marks,cnps,pfc_frames,paused_us,retransmitted\n");
        for (Row row : rows) {
            Scenario.Result r = row.result();
            long retx = r.flows().stream()
                    .mapToLong(Scenario.FlowResult::packetsRetransmitted)
                    .sum();
            csv.append(String.format(
                    Locale.ROOT,
                    "%s,%s,%.3f,%.3f,%.3f,%.3f,%d,%d,%d,%.3f,%d%n",
                    row.label(),
                    r.allComplete(),
                    r.endNs() / 1e3,
                    r.messageFctPercentileNs(50) / 1e3,
                    r.messageFctPercentileNs(99) / 1e3,
                    r.messageFctPercentileNs(99.9) / 1e3,
                    r.ecnMarked(),
                    r.cnpsSent(),
                    r.pfcFramesSent(),
                    r.dataPausedNs() / 1e3,
                    retx));
        }
        StringBuilder html = new StringBuilder("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                + "<title>sweep</title><style>body{font-family:sans-serif;max-width:980px;margin:2em auto}"
                + "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}"
                + "td:first-child{text-align:left}th{background:#f3f3f3}</style></head><body>\n<h1>Sweep</h1>\n"
                + "<table><tr><th>variant</th><th>complete</th><th>end µs</th><th>FCT P50 µs</th><th>P99 µs</th>"
                + "<th>P99.9 µs</th><th>ECN marks</th><th>CNPs</th><th>PFC frames</th><th>paused µs</th>"
                + "<th>retransmitted</th></tr>\n");
        String[] lines = csv.toString().split("\n");
        for (int i = 0; i < rows.size(); i++) {
            String label = rows.get(i).label();
            String[] values = lines[i + 1].substring(label.length() + 1).split(",");
            html.append("<tr><td><a href=\"")
                    .append(Report.escape(label))
                    .append("/report.html\">")
                    .append(Report.escape(label))
                    .append("</a></td>");
            for (String v : values) {
                html.append("<td>").append(Report.escape(v)).append("</td>");
            }
            html.append("</tr>\n");
        }
        html.append("</table>\n");
        html.append(bars("message FCT P99 (µs)", rows, r -> r.messageFctPercentileNs(99) / 1e3));
        html.append(bars("host time paused by PFC (µs)", rows, r -> r.dataPausedNs() / 1e3));
        html.append(bars("CNPs sent", rows, r -> (double) r.cnpsSent()));
        html.append("</body></html>\n");
        try {
            Files.createDirectories(outDir);
            Files.writeString(outDir.resolve("sweep.csv"), csv);
            Files.writeString(outDir.resolve("sweep.html"), html);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String bars(String title, List<Row> rows, java.util.function.ToDoubleFunction<Scenario.Result> f) {
        double max = 0;
        for (Row row : rows) {
            max = Math.max(max, f.applyAsDouble(row.result()));
        }
        int barH = 18;
        int height = 30 + rows.size() * (barH + 6);
        StringBuilder svg = new StringBuilder(String.format(
                Locale.ROOT,
                "<h2>%s</h2>%n<svg xmlns=\"http://www.w3.org/"
                        + "2000/svg\" width=\"760\" height=\"%d\" font-size=\"11\">%n",
                Report.escape(title),
                height));
        int y = 10;
        for (Row row : rows) {
            double v = f.applyAsDouble(row.result());
            double w = max == 0 ? 0 : 440 * v / max;
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"0\" y=\"%d\">%s</text><rect x=\"230\" y=\"%d\" "
                            + "width=\"%.1f\" height=\"%d\" fill=\"#1f77b4\"/><text x=\"%.1f\" y=\"%d\">%.3f</text>%n",
                    y + 13,
                    Report.escape(row.label()),
                    y,
                    w,
                    barH,
                    235 + w,
                    y + 13,
                    v));
            y += barH + 6;
        }
        return svg.append("</svg>\n").toString();
    }
}
