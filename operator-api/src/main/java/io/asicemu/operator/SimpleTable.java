package io.asicemu.operator;

import java.util.ArrayList;
import java.util.List;

/**
 * Python tabulate's {@code simple} format with {@code stralign='right'}, the one sonic-utilities' show commands
 * print: every cell right-aligned to its column's width (the header plus two, or the widest cell), columns two spaces apart, a line of
 * dashes under the header.
 */
final class SimpleTable {
    /** tabulate's MIN_PADDING: a column is at least two wider than its header. */
    private static final int MIN_PADDING = 2;

    private SimpleTable() {}

    /**
     * @param header the column names.
     * @param rows the rows (each as long as the header).
     * @return the table, each line ending in a newline.
     */
    static String render(final List<String> header, final List<List<String>> rows) {
        final int[] width = new int[header.size()];
        for (int c = 0; c < width.length; c++) {
            width[c] = header.get(c).length() + MIN_PADDING;
            for (final List<String> row : rows) {
                width[c] = Math.max(width[c], row.get(c).length());
            }
        }
        final StringBuilder out = new StringBuilder();
        line(out, header, width);
        final List<String> dashes = new ArrayList<>();
        for (final int w : width) {
            dashes.add("-".repeat(w));
        }
        line(out, dashes, width);
        for (final List<String> row : rows) {
            line(out, row, width);
        }
        return out.toString();
    }

    private static void line(final StringBuilder out, final List<String> cells, final int[] width) {
        for (int c = 0; c < width.length; c++) {
            if (c > 0) {
                out.append("  ");
            }
            out.append(" ".repeat(width[c] - cells.get(c).length())).append(cells.get(c));
        }
        out.append('\n');
    }
}
