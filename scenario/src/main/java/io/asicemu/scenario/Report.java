package io.asicemu.scenario;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One self-contained HTML page per run: inline SVG plots (goodput and DCQCN rate per flow over time, queue depth
 * over time, message completion times as a CDF) and the tables behind them. No scripts, fonts or network needed to
 * view it; numbers are formatted with a fixed locale so the file is byte-identical run to run.
 */
final class Report {
    private static final String[] COLOURS = {
        "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"
    };
    private static final int WIDTH = 760;
    private static final int HEIGHT = 300;
    private static final int LEFT = 70;
    private static final int RIGHT = 150;
    private static final int TOP = 30;
    private static final int BOTTOM = 45;

    private Report() {}

    static String html(Scenario.Result r, Samples samples) {
        StringBuilder h = new StringBuilder(64 * 1024);
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>")
                .append(escape(r.name()))
                .append("</title>\n<style>body{font-family:sans-serif;max-width:980px;"
                        + "margin:2em auto;color:#222}table{border-collapse:collapse;margin:1em 0}td,th{border:1px "
                        + "solid #ccc;padding:3px 8px;text-align:right}th{background:#f3f3f3}td:first-child,"
                        + "th:first-child{text-align:left}svg{display:block;margin:1em 0}</style></head><body>\n");
        h.append("<h1>")
                .append(escape(r.name()))
                .append("</h1>\n<p>")
                .append(r.allComplete() ? "Every message acknowledged" : "<b>Not every message completed</b>")
                .append(String.format(
                        Locale.ROOT,
                        " at %.3f µs of virtual time. Switches: %d ECN marks, %d PFC " + "frames sent.</p>\n",
                        r.endNs() / 1e3,
                        r.ecnMarked(),
                        r.pfcFramesSent()));

        h.append("<h2>Flows</h2>\n<table><tr><th>flow</th><th>from → to</th><th>bytes</th><th>FCT µs</th>"
                + "<th>goodput Gb/s</th><th>CE at receiver</th><th>CNPs sent / received</th><th>rate cuts</th>"
                + "<th>retransmitted</th><th>timeouts</th></tr>\n");
        for (Scenario.FlowResult f : r.flows()) {
            h.append(String.format(
                    Locale.ROOT,
                    "<tr><td>%s</td><td>%s → %s</td><td>%d</td><td>%.3f</td>"
                            + "<td>%.2f</td><td>%d</td><td>%d / %d</td><td>%d</td><td>%d</td><td>%d</td></tr>%n",
                    escape(f.name()),
                    escape(f.from()),
                    escape(f.to()),
                    f.bytes(),
                    f.fctNs() / 1e3,
                    f.goodputGbps(),
                    f.ceMarksReceived(),
                    f.cnpsSent(),
                    f.cnpsReceived(),
                    f.rateCuts(),
                    f.packetsRetransmitted(),
                    f.timeouts()));
        }
        h.append("</table>\n");

        List<Series> goodput = new ArrayList<>();
        List<Series> rate = new ArrayList<>();
        for (Map.Entry<String, List<double[]>> e : samples.rateSeries.entrySet()) {
            goodput.add(new Series(e.getKey(), e.getValue(), 0, 2));
            rate.add(new Series(e.getKey(), e.getValue(), 0, 1));
        }
        h.append("<h2>Goodput per flow</h2>\n")
                .append(lineChart("bytes received in order per sample period", "time (µs)", "Gb/s", goodput));
        h.append("<h2>Sending rate per flow (DCQCN R<sub>C</sub>, summed over the flow's QPs)</h2>\n")
                .append(lineChart("reaction-point rate of active QPs", "time (µs)", "Gb/s", rate));
        List<Series> depth = new ArrayList<>();
        for (Map.Entry<String, List<double[]>> e : samples.depthSeries.entrySet()) {
            depth.add(new Series(e.getKey(), e.getValue(), 0, 1));
        }
        h.append("<h2>Queue depth</h2>\n")
                .append(lineChart("switch:port:queue occupancy", "time (µs)", "bytes", depth));

        if (!samples.pauseSeries.isEmpty()) {
            List<Series> paused = new ArrayList<>();
            for (Map.Entry<String, List<double[]>> e : samples.pauseSeries.entrySet()) {
                // A port that only sent PFC frames was never paused: its frames are in the CSV, not on this plot.
                if (e.getValue().stream().anyMatch(row -> row[1] > 0)) {
                    paused.add(new Series(e.getKey(), e.getValue(), 0, 1));
                }
            }
            h.append("<h2>PFC pause time</h2>\n<p>Share of each sample period a port's priority was paused by PFC "
                            + "frames it received (hosts' NICs as <i>host:nic:priority</i>, switch ports as "
                            + "<i>switch:port:priority</i>); PFC frames sent per period are in <code>pfc_over_time.csv"
                            + "</code>.</p>\n")
                    .append(
                            paused.isEmpty()
                                    ? "<p>No port was paused.</p>\n"
                                    : lineChart("paused share of each sample period", "time (µs)", "% paused", paused));
        }
        if (!samples.spreadSeries.isEmpty()) {
            List<Series> spread = new ArrayList<>();
            for (Map.Entry<String, List<double[]>> e : samples.spreadSeries.entrySet()) {
                spread.add(new Series(e.getKey(), e.getValue(), 0, 1));
            }
            h.append("<h2>ECMP/ARS spread</h2>\n<p>Bytes each multi-member next-hop group assigned to each member per "
                            + "sample period (<i>switch:member port</i>, with the group where a switch has several), counted "
                            + "as the group picks the member, so a burst into a member's queue can show above the port's "
                            + "rate; packets and group ids in <code>ecmp_spread.csv</code>.</p>\n")
                    .append(lineChart("traffic assigned per group member", "time (µs)", "Gb/s", spread));
        }
        if (!samples.reassignmentSeries.isEmpty()) {
            List<Series> moved = new ArrayList<>();
            for (Map.Entry<String, List<double[]>> e : samples.reassignmentSeries.entrySet()) {
                moved.add(new Series(e.getKey(), e.getValue(), 0, 1));
            }
            h.append("<h2>Flowlet reassignments</h2>\n<p>Flowlets placed on another member than the flow's previous "
                            + "one, per sample period; flowlets started are in <code>flowlets.csv</code>.</p>\n")
                    .append(lineChart("flowlets moved per period", "time (µs)", "flowlets", moved));
        }

        if (!r.messages().isEmpty()) {
            List<Series> cdf = new ArrayList<>();
            Map<String, List<Long>> fctByFlow = new java.util.LinkedHashMap<>();
            for (Scenario.MessageResult m : r.messages()) {
                fctByFlow.computeIfAbsent(m.flow(), k -> new ArrayList<>()).add(m.fctNs());
            }
            h.append("<h2>Message completion times</h2>\n<table><tr><th>flow</th><th>messages</th><th>P50 µs</th>"
                    + "<th>P99 µs</th><th>P99.9 µs</th><th>max µs</th></tr>\n");
            for (Map.Entry<String, List<Long>> e : fctByFlow.entrySet()) {
                long[] sorted = e.getValue().stream()
                        .mapToLong(Long::longValue)
                        .sorted()
                        .toArray();
                List<double[]> points = new ArrayList<>();
                for (int i = 0; i < sorted.length; i++) {
                    points.add(new double[] {sorted[i] / 1e3, (i + 1.0) / sorted.length});
                }
                cdf.add(new Series(e.getKey(), points, 0, 1));
                h.append(String.format(
                        Locale.ROOT,
                        "<tr><td>%s</td><td>%d</td><td>%.3f</td><td>%.3f</td>" + "<td>%.3f</td><td>%.3f</td></tr>%n",
                        escape(e.getKey()),
                        sorted.length,
                        percentile(sorted, 50) / 1e3,
                        percentile(sorted, 99) / 1e3,
                        percentile(sorted, 99.9) / 1e3,
                        sorted[sorted.length - 1] / 1e3));
            }
            h.append("</table>\n").append(lineChart("CDF of message completion time", "FCT (µs)", "fraction", cdf));
        }

        h.append("<h2>Switch queues</h2>\n<table><tr><th>switch:port:queue</th><th>packets</th><th>ECN marked</th>"
                + "<th>dropped</th><th>shared watermark B</th></tr>\n");
        for (Scenario.QueueResult q : r.queues()) {
            h.append(String.format(
                    Locale.ROOT,
                    "<tr><td>%s:%s:%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td>" + "</tr>%n",
                    escape(q.switchName()),
                    escape(q.port()),
                    q.queue(),
                    q.packets(),
                    q.ecnMarked(),
                    q.dropped(),
                    q.watermarkBytes()));
        }
        h.append("</table>\n");
        if (!r.pfc().isEmpty()) {
            h.append("<h2>PFC</h2>\n<table><tr><th>switch:port</th><th>priority</th><th>frames sent</th>"
                    + "<th>frames received</th></tr>\n");
            for (Scenario.PfcResult p : r.pfc()) {
                h.append(String.format(
                        Locale.ROOT,
                        "<tr><td>%s:%s</td><td>%d</td><td>%d</td><td>%d</td></tr>%n",
                        escape(p.switchName()),
                        escape(p.port()),
                        p.priority(),
                        p.framesSent(),
                        p.framesReceived()));
            }
            h.append("</table>\n");
        }
        h.append("<p>Every series is also in the CSV files beside this page.</p>\n</body></html>\n");
        return h.toString();
    }

    /** Nearest-rank percentile. */
    static long percentile(long[] sorted, double p) {
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    record Series(String name, List<double[]> rows, int x, int y) {}

    static String lineChart(String title, String xLabel, String yLabel, List<Series> series) {
        double minX = Double.MAX_VALUE;
        double maxX = -Double.MAX_VALUE;
        double maxY = 0;
        for (Series s : series) {
            for (double[] row : s.rows()) {
                minX = Math.min(minX, row[s.x()]);
                maxX = Math.max(maxX, row[s.x()]);
                maxY = Math.max(maxY, row[s.y()]);
            }
        }
        if (series.isEmpty() || minX > maxX) {
            return "<p>(no samples)</p>\n";
        }
        if (maxX == minX) {
            maxX = minX + 1;
        }
        maxY = niceCeiling(maxY == 0 ? 1 : maxY);
        int plotW = WIDTH - LEFT - RIGHT;
        int plotH = HEIGHT - TOP - BOTTOM;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                        + "viewBox=\"0 0 %d %d\" font-size=\"11\">%n",
                WIDTH,
                HEIGHT,
                WIDTH,
                HEIGHT));
        svg.append(String.format(
                Locale.ROOT, "<text x=\"%d\" y=\"16\" font-weight=\"bold\">%s</text>%n", LEFT, escape(title)));
        for (int i = 0; i <= 5; i++) {
            double yv = maxY * i / 5;
            double py = TOP + plotH - plotH * i / 5.0;
            svg.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>"
                            + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
                    LEFT,
                    py,
                    LEFT + plotW,
                    py,
                    LEFT - 5,
                    py + 4,
                    tick(yv)));
            double xv = minX + (maxX - minX) * i / 5;
            double px = LEFT + plotW * i / 5.0;
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                    px,
                    TOP + plotH + 15,
                    tick(xv)));
        }
        svg.append(String.format(
                Locale.ROOT,
                "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" " + "stroke=\"#888\"/>%n",
                LEFT,
                TOP,
                plotW,
                plotH));
        svg.append(String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                LEFT + plotW / 2,
                HEIGHT - 8,
                escape(xLabel)));
        svg.append(String.format(
                Locale.ROOT,
                "<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" " + "text-anchor=\"middle\">%s</text>%n",
                TOP + plotH / 2,
                TOP + plotH / 2,
                escape(yLabel)));
        int i = 0;
        for (Series s : series) {
            String colour = COLOURS[i % COLOURS.length];
            StringBuilder points = new StringBuilder();
            for (double[] row : s.rows()) {
                double px = LEFT + plotW * (row[s.x()] - minX) / (maxX - minX);
                double py = TOP + plotH - plotH * Math.min(row[s.y()], maxY) / maxY;
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", px, py));
            }
            svg.append(String.format(
                    Locale.ROOT,
                    "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" " + "points=\"%s\"/>%n",
                    colour,
                    points.toString().trim()));
            int ly = TOP + 12 + 16 * i;
            svg.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
                            + "stroke-width=\"3\"/><text x=\"%d\" y=\"%d\">%s</text>%n",
                    LEFT + plotW + 10,
                    ly - 4,
                    LEFT + plotW + 28,
                    ly - 4,
                    colour,
                    LEFT + plotW + 32,
                    ly,
                    escape(s.name())));
            i++;
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static double niceCeiling(double v) {
        double magnitude = Math.pow(10, Math.floor(Math.log10(v)));
        for (double step : new double[] {1, 2, 2.5, 5, 10}) {
            if (step * magnitude >= v) {
                return step * magnitude;
            }
        }
        return 10 * magnitude;
    }

    private static String tick(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return String.format(Locale.ROOT, "%d", (long) v);
        }
        return String.format(Locale.ROOT, "%.3g", v);
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
