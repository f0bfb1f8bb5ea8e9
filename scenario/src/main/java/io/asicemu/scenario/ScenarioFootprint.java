package io.asicemu.scenario;

import io.asicemu.pipeline.config.AdminDownPorts;
import io.asicemu.pipeline.config.ConfigDb;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What a scenario will need before it runs: the Java heap it takes (so that a command can refuse it up front, naming
 * the heap to give, instead of running out of memory midway) and the switch ports it leaves admin down (which
 * forward nothing). Reads the scenario file and its switches' config_db.json, builds nothing. Stateless.
 * <p>
 * The heap model, measured (scenario/README.md "Memory"): a switch's pipeline at the default table sizes (148,072
 * routes, …) is {@link #SWITCH_BYTES}; a host (its NIC model, queue pairs and messages) {@link #HOST_BYTES}; and every
 * sample period keeps, for each host and each switch port, the PFC rows of 8 priorities and the rate and depth series
 * ({@link #PORT_SAMPLE_BYTES} per host or port and sample). {@link #HEADROOM} covers the garbage a collector needs
 * room for and the report written at the end.
 *
 * @param switches switches in the fabric.
 * @param hosts hosts in the fabric.
 * @param switchPorts PORT entries over every switch's config.
 * @param samples sample periods the run may take ({@code durationUs / sampleUs}, plus the closing one).
 * @param adminDown one warning per switch with admin-down ports ({@code <switch>: <warning>}).
 */
public record ScenarioFootprint(int switches, int hosts, long switchPorts, long samples, List<String> adminDown) {
    /** The JVM, the classes and the scenario's own structures, whatever its size. */
    static final long BASE_BYTES = 16L << 20;
    /** One switch's pipeline with the default table sizes (measured: see the class comment). */
    static final long SWITCH_BYTES = 12L << 20;
    /** One host: NIC model, queue pairs, posted messages. */
    static final long HOST_BYTES = 256L << 10;
    /** One sample of one host or switch port (PFC rows of 8 priorities, rates, depths). */
    static final long PORT_SAMPLE_BYTES = 512;
    /** Live data is at most this fraction of the heap: G1 needs the rest to collect without thrashing. */
    static final double HEADROOM = 1.5;

    /**
     * @param file a scenario file, or with {@code sweep} a sweep file (its scenario is read).
     * @param sweep whether {@code file} is a sweep.
     * @return the footprint of one run (a sweep runs its variants one after the other).
     * @throws ScenarioException if the file or a switch config cannot be read.
     */
    public static ScenarioFootprint of(final Path file, final boolean sweep) {
        Path scenarioFile = file.toAbsolutePath();
        if (sweep) {
            Sweep s = Sweep.load(file);
            if (s.scenario() == null) {
                throw new ScenarioException(file + ": scenario is required");
            }
            scenarioFile = scenarioFile.getParent().resolve(s.scenario());
        }
        ScenarioSpec spec = ScenarioSpec.load(scenarioFile);
        Path baseDir = scenarioFile.getParent();
        long ports = 0;
        List<String> warnings = new ArrayList<>();
        for (ScenarioSpec.SwitchSpec s : spec.switches()) {
            if (s.config() == null) {
                continue; // refused with its name when the scenario runs
            }
            Path config = Fabric.resolve(baseDir, s.config());
            ConfigDb db;
            try {
                db = ConfigDb.load(config);
            } catch (RuntimeException e) {
                throw new ScenarioException("switch " + s.name() + ": " + config + ": " + e.getMessage());
            }
            ports += db.table("PORT").size();
            String warning = AdminDownPorts.warning(db);
            if (warning != null) {
                warnings.add(s.name() + ": " + warning);
            }
        }
        long samples = spec.durationUs() <= 0 ? 0 : spec.durationUs() / Math.max(1, spec.sampleUs()) + 2;
        return new ScenarioFootprint(
                spec.switches().size(), spec.hosts().size(), ports, samples, List.copyOf(warnings));
    }

    /** @return the live data the run is expected to reach (bytes). */
    public long liveBytes() {
        return BASE_BYTES
                + switches * SWITCH_BYTES
                + hosts * HOST_BYTES
                + (hosts + switchPorts) * samples * PORT_SAMPLE_BYTES;
    }

    /** @return the heap ({@code -Xmx}) to run it with, rounded up to 256 MiB (bytes). */
    public long heapBytes() {
        final long quantum = 256L << 20;
        long need = (long) (liveBytes() * HEADROOM);
        return (need + quantum - 1) / quantum * quantum;
    }

    /** @return {@link #heapBytes()} as a {@code -Xmx} value ({@code 768m}, {@code 3g}). */
    public String heapOption() {
        long mib = heapBytes() >> 20;
        return mib % 1024 == 0 ? (mib / 1024) + "g" : mib + "m";
    }
}
