package io.asicemu.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

/** Python tabulate as the layout oracle, as {@link ShowViewsGoldenTest} uses it, for the other golden tests. */
final class ShowViewsGoldenTestAccess {
    private ShowViewsGoldenTestAccess() {}

    /** Lays our cells out again with tabulate (sonic-utilities' formatter) and compares the text. */
    static void sameAsTabulate(final String table) throws Exception {
        final List<String> lines = table.lines().toList();
        final StringBuilder rows = new StringBuilder("[");
        for (int i = 2; i < lines.size(); i++) {
            rows.append(pyList(lines.get(i))).append(',');
        }
        rows.append(']');
        final String script = "from tabulate import tabulate\n" + "print(tabulate(" + rows + ", " + pyList(lines.get(0))
                + ", tablefmt='simple', stralign='right'))\n";
        final String out = OperatorRedisServerTest.run(List.of("/usr/bin/python3", "-c", script));
        assertThat(out).isEqualTo(table);
    }

    private static String pyList(final String line) {
        final StringBuilder out = new StringBuilder("[");
        for (final String cell : line.strip().split(" {2,}")) {
            out.append('\'')
                    .append(cell.replace("\\", "\\\\").replace("'", "\\'"))
                    .append("',");
        }
        return out.append(']').toString();
    }
}
