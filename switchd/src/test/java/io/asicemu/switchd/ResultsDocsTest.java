package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/PERFORMANCE.md and docs/LAB.md are current-results documents: every table in them has a command, a machine and
 * a date column, and every row fills them — the command as a code span (or "the same …", meaning the row above's), a
 * machine, and a date {@code YYYY-MM-DD}. A result cannot be added without saying how, where and when it was measured.
 * Each row also names its record, a section of a docs/journal/ file (the heading, up to the first colon).
 */
class ResultsDocsTest {
    private static final List<Path> DOCS =
            List.of(Path.of("..", "docs", "PERFORMANCE.md"), Path.of("..", "docs", "LAB.md"));
    private static final Pattern DATE = Pattern.compile("\\b20\\d\\d-\\d\\d-\\d\\d\\b");
    private static final Pattern CODE = Pattern.compile("`[^`]+`");

    @Test
    void shouldGiveEveryResultItsCommandMachineAndDate() throws IOException {
        for (final Path doc : DOCS) {
            final String text = Files.readString(doc, StandardCharsets.UTF_8);
            assertThat(rows(text)).as(doc + ": result rows").isGreaterThanOrEqualTo(5);
            assertThat(problems(text)).as(doc.toString()).isEmpty();
        }
    }

    @Test
    void shouldNameARecordThatTheJournalHas() throws IOException {
        final StringBuilder headings = new StringBuilder();
        try (var files = Files.list(Path.of("..", "docs", "journal"))) {
            for (final Path file :
                    files.filter(f -> f.toString().endsWith(".md")).toList()) {
                for (final String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    if (line.startsWith("#")) {
                        headings.append(line).append('\n');
                    }
                }
            }
        }
        for (final Path doc : DOCS) {
            for (final List<List<String>> table : tables(Files.readString(doc, StandardCharsets.UTF_8))) {
                final int record = column(table.get(0), "record");
                assertThat(record)
                        .as(doc + ": a record column in " + table.get(0))
                        .isNotNegative();
                for (final List<String> row : table.subList(1, table.size())) {
                    final String section = row.get(record).split(":")[0].strip();
                    assertThat(headings.toString())
                            .as(doc + ": " + row.get(0) + ": the journal has a section \"" + section + "\"")
                            .containsIgnoringCase(section);
                }
            }
        }
    }

    @Test
    void shouldRefuseARowWithoutCommandMachineOrDate() {
        final String head = "| aim | latest | command | machine | date |\n|---|---|---|---|---|\n";
        assertThat(problems(head + "| a | 1 | `x --y` | quiet | 2026-12-03 10:00 UTC |\n"))
                .isEmpty();
        assertThat(problems(
                        head + "| a | 1 | `x` | quiet | 2026-12-03 |\n| b | 2 | the same run | quiet | 2026-12-04 |\n"))
                .isEmpty();
        assertThat(problems(head + "| a | 1 | `x` | quiet | yesterday |\n"))
                .singleElement()
                .asString()
                .contains("date");
        assertThat(problems(head + "| a | 1 | `x` |  | 2026-12-03 |\n"))
                .singleElement()
                .asString()
                .contains("machine");
        assertThat(problems(head + "| a | 1 | ran it | quiet | 2026-12-03 |\n"))
                .singleElement()
                .asString()
                .contains("command");
        assertThat(problems(head + "| b | 2 | the same run | quiet | 2026-12-04 |\n"))
                .singleElement()
                .asString()
                .contains("command");
        assertThat(problems(head + "| a | 1 | `x` | quiet |\n")).isNotEmpty();
        assertThat(problems("| aim | latest |\n|---|---|\n| a | 1 |\n"))
                .singleElement()
                .asString()
                .contains("no command");
    }

    private static int rows(final String markdown) {
        int rows = 0;
        for (final List<List<String>> table : tables(markdown)) {
            rows += table.size() - 1;
        }
        return rows;
    }

    /** @return what is missing, one line per row and cell. */
    static List<String> problems(final String markdown) {
        final List<String> problems = new ArrayList<>();
        for (final List<List<String>> table : tables(markdown)) {
            final List<String> header = table.get(0);
            final int command = column(header, "command");
            final int machine = column(header, "machine");
            final int date = column(header, "date");
            if (command < 0 || machine < 0 || date < 0) {
                problems.add("a table with no command, machine or date column: " + header);
                continue;
            }
            boolean previousHasCommand = false;
            for (final List<String> row : table.subList(1, table.size())) {
                final String name = row.isEmpty() ? "?" : row.get(0);
                if (row.size() != header.size()) {
                    problems.add(name + ": " + row.size() + " cells, the header has " + header.size());
                    previousHasCommand = false;
                    continue;
                }
                final String cmd = row.get(command);
                final boolean hasCommand =
                        CODE.matcher(cmd).find() || (cmd.startsWith("the same") && previousHasCommand);
                if (!hasCommand) {
                    problems.add(name + ": no command (a code span, or \"the same …\" under a row with one)");
                }
                previousHasCommand = hasCommand;
                if (row.get(machine).isBlank() || row.get(machine).equals("—")) {
                    problems.add(name + ": no machine");
                }
                if (!DATE.matcher(row.get(date)).find()) {
                    problems.add(name + ": no date (YYYY-MM-DD)");
                }
            }
        }
        return problems;
    }

    private static int column(final List<String> header, final String name) {
        for (int i = 0; i < header.size(); i++) {
            if (header.get(i).toLowerCase(Locale.ROOT).equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /** Every Markdown table: its header row, then its body rows (the separator row dropped), as trimmed cells. */
    static List<List<List<String>>> tables(final String markdown) {
        final List<List<List<String>>> tables = new ArrayList<>();
        List<List<String>> current = null;
        for (final String line : markdown.split("\n", -1)) {
            if (!line.startsWith("|")) {
                current = null;
                continue;
            }
            final List<String> cells = cells(line);
            if (current == null) {
                current = new ArrayList<>();
                tables.add(current);
                current.add(cells);
            } else if (!cells.stream().allMatch(c -> c.matches(":?-+:?"))) {
                current.add(cells);
            }
        }
        return tables;
    }

    /** The cells of a table row: split at the pipes that are not escaped ({@code \|} inside a code span). */
    private static List<String> cells(final String line) {
        final List<String> cells = new ArrayList<>();
        final String body = line.strip();
        final StringBuilder cell = new StringBuilder();
        for (int i = 1; i < body.length(); i++) {
            final char c = body.charAt(i);
            if (c == '\\' && i + 1 < body.length() && body.charAt(i + 1) == '|') {
                cell.append('|');
                i++;
            } else if (c == '|') {
                cells.add(cell.toString().strip());
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        if (!cell.toString().isBlank()) {
            cells.add(cell.toString().strip());
        }
        return cells;
    }
}
