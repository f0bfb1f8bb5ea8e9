package io.asicemu.flowlet.ars;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.flowlet.GroupSettings;
import io.asicemu.flowlet.LoadBalanceGroup;
import io.asicemu.flowlet.ecmp.LoadBalanceMode;
import io.asicemu.flowlet.hash.HashAlgorithm;
import io.asicemu.flowlet.hash.HashEngine;
import io.asicemu.flowlet.hash.HashField;
import io.asicemu.flowlet.hash.HashKey;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The runtime setters (P4Runtime registers ars.*) against groups and engines built fresh with the same settings:
 * the same packet sequence must pick the same members and count the same flowlets.
 */
class RuntimeSettersTest {
    private static final int[] PORTS = {0, 1, 2, 3};
    private static final int[] WEIGHTS = {1, 1, 1, 1};
    /** Gaps between the packets of one flow: short, around 100 µs, and long. */
    private static final long[] GAPS_NS = {1_000, 90_000, 120_000, 300_000, 50_000, 99_999, 100_001, 700_000, 10};

    private static HashEngine engine(final int seed) {
        return new HashEngine(HashAlgorithm.CRC, HashField.fiveTupleMask(), 0, seed, 0, 1);
    }

    private static LoadBalanceGroup group(final LoadBalanceMode mode, final long idleNs, final HashEngine engine) {
        return new LoadBalanceGroup(
                GroupSettings.of(mode).withFlowlet(512, idleNs).withRandomSeed(42), PORTS, WEIGHTS, engine, null);
    }

    /** Eight flows, each sent along GAPS_NS interleaved; members picked, then flowlet counters. */
    private static List<String> run(final LoadBalanceGroup group) {
        final List<String> out = new ArrayList<>();
        final HashKey key = new HashKey();
        long nowNs = 1_000_000;
        for (final long gap : GAPS_NS) {
            nowNs += gap;
            for (int flow = 0; flow < 8; flow++) {
                key.ipv4FiveTuple(0x0A00_0001 + flow, 0x0A00_0002, 17, 50_000 + flow, 4791);
                out.add(flow + "@" + nowNs + "->" + group.select(key, 1000, nowNs));
            }
        }
        out.add("flowlets " + group.newFlowlets() + " moves " + group.flowletReassignments());
        return out;
    }

    @Test
    void shouldJudgeGapsAsAGroupBuiltWithTheIdleTimeWhenIdleTimeIsSetAtRuntime() {
        final List<String> expected = run(group(LoadBalanceMode.FLOWLET_RANDOM, 100_000, engine(0)));
        final LoadBalanceGroup changed = group(LoadBalanceMode.FLOWLET_RANDOM, 1_000_000, engine(0));
        changed.idleTimeNs(100_000);

        assertThat(run(changed)).isEqualTo(expected);
        assertThat(changed.settings().idleTimeNs()).isEqualTo(100_000);
        // 8 flows start once, then every gap above 100 µs (120, 300, 100.001, 700 µs) starts a new flowlet each.
        assertThat(expected.getLast()).startsWith("flowlets " + 8 * 5 + " ");
        final List<String> longIdle = run(group(LoadBalanceMode.FLOWLET_RANDOM, 1_000_000, engine(0)));
        assertThat(longIdle.getLast()).startsWith("flowlets 8 ");
    }

    @Test
    void shouldRefuseIdleTimeOutsideLimitsAndKeepTheOldOne() {
        final LoadBalanceGroup group = group(LoadBalanceMode.FLOWLET_RANDOM, 100_000, engine(0));
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> group.idleTimeNs(GroupSettings.MIN_IDLE_TIME_NS - 1));
        assertThat(group.settings().idleTimeNs()).isEqualTo(100_000);
    }

    @Test
    void shouldHashAsAnEngineBuiltWithTheSeedWhenSeedIsSetAtRuntime() {
        final List<String> expected = run(group(LoadBalanceMode.STATIC_HASH, 256_000, engine(0x1234_5678)));
        final HashEngine engine = engine(0);
        final List<String> before = run(group(LoadBalanceMode.STATIC_HASH, 256_000, engine));
        engine.seed(0x1234_5678);

        assertThat(run(group(LoadBalanceMode.STATIC_HASH, 256_000, engine))).isEqualTo(expected);
        assertThat(before).isNotEqualTo(expected);
    }

    @Test
    void shouldSelectAsAGroupBuiltWithTheModeWhenModeIsSetAtRuntime() {
        final List<String> expected = run(group(LoadBalanceMode.FLOWLET_RANDOM, 100_000, engine(0)));
        final LoadBalanceGroup changed = group(LoadBalanceMode.STATIC_HASH, 100_000, engine(0));
        changed.mode(LoadBalanceMode.FLOWLET_RANDOM, null);

        assertThat(run(changed)).isEqualTo(expected);
        assertThat(changed.flowletTableCapacity()).isEqualTo(512);
    }
}
