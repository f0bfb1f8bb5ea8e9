package io.asicemu.routing;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Interface names from {@code /sys/class/net/<name>/ifindex}, the namespace this process sees (in the appliance's
 * container, zebra's and the switch's). Cached; a miss re-reads the directory (an interface created since), at most
 * once per {@link #MIN_REFRESH_INTERVAL_NS} so that a peer naming bogus indexes cannot make every message a
 * directory scan. fpmsyncd does the same with libnl's link cache (refilled on a miss). Not thread safe (the FPM I/O
 * thread uses it).
 */
public final class SysClassNetInterfaceNames implements InterfaceNames {
    /** Re-reads that may follow one another at once. */
    static final int REFRESH_BURST = 8;
    /** One re-read more is allowed per this much time, up to {@link #REFRESH_BURST}. */
    static final long REFRESH_INTERVAL_NS = 100_000_000L;

    private final Path directory;
    private final LongSupplier nanoClock;
    private Map<Integer, String> names = Map.of();
    private long budgetAtNs;
    private boolean started;

    /** Reads {@code /sys/class/net}. */
    public SysClassNetInterfaceNames() {
        this(Path.of("/sys/class/net"), System::nanoTime);
    }

    SysClassNetInterfaceNames(final Path directory, final LongSupplier nanoClock) {
        this.directory = directory;
        this.nanoClock = nanoClock;
    }

    @Override
    public String nameOf(final int ifindex) {
        final String name = names.get(ifindex);
        if (name != null) {
            return name;
        }
        if (!takeRefresh(nanoClock.getAsLong())) {
            return null;
        }
        names = read();
        return names.get(ifindex);
    }

    /**
     * The budget as a time: {@code budgetAtNs} is when it was empty; it holds (now − budgetAtNs) / interval
     * re-reads, at most the burst.
     */
    private boolean takeRefresh(final long nowNs) {
        final long full = REFRESH_BURST * REFRESH_INTERVAL_NS;
        if (!started || nowNs - budgetAtNs > full) {
            started = true;
            budgetAtNs = nowNs - full;
        }
        if (nowNs - budgetAtNs < REFRESH_INTERVAL_NS) {
            return false;
        }
        budgetAtNs += REFRESH_INTERVAL_NS;
        return true;
    }

    private Map<Integer, String> read() {
        final Map<Integer, String> read = new HashMap<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
            for (final Path entry : entries) {
                try {
                    read.put(
                            Integer.parseInt(
                                    Files.readString(entry.resolve("ifindex")).trim()),
                            entry.getFileName().toString());
                } catch (final IOException | NumberFormatException e) {
                    // an interface that went away while we read, or a stray file: not an interface
                }
            }
        } catch (final IOException e) {
            return names;
        }
        return Map.copyOf(read);
    }
}
