package io.asicemu.switchd.registers;

import io.asicemu.operator.RegisterAccess;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.pipeline.control.ControlAgent;
import io.asicemu.pipeline.control.PipelineControl;
import io.asicemu.pipeline.control.RuntimeKnobs;
import io.asicemu.pipeline.control.TableBatch;
import io.asicemu.pipeline.control.TableException;
import io.asicemu.tm.TmOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeoutException;

/**
 * The {@link ChipRegister} map bound to a running pipeline's control model. Reads give the values in force: the
 * writable registers from the {@link RuntimeKnobs} (what P4Runtime register reads answer), the others from the
 * compiled configuration and the traffic manager's options. A write is checked (register writable, instance exists,
 * value within the register's width), then is one {@link TableBatch#setKnob} committed as one data-plane command —
 * the path a P4Runtime register write takes, with the model's own range and precondition checks — so a refused write
 * changes nothing.
 * <p>
 * Thread safe: every call runs on the switch's control agent (the thread P4Runtime writes run on).
 */
public final class RegisterMap implements RegisterAccess {
    private final ControlAgent control;
    private final TmOptions tmOptions;
    private final Duration applyTimeout;

    /**
     * @param control the switch's control agent (reads and writes run on its thread).
     * @param tmOptions the traffic manager's options the configuration was applied with.
     * @param applyTimeout how long a write waits for the data plane to apply it; null: it returns once queued (tests
     *     that step the data plane themselves).
     */
    public RegisterMap(final ControlAgent control, final TmOptions tmOptions, final Duration applyTimeout) {
        this.control = control;
        this.tmOptions = tmOptions;
        this.applyTimeout = applyTimeout;
    }

    @Override
    public List<Row> read(final String name, final String instance) {
        final List<ChipRegister> registers = name == null ? List.of(ChipRegister.values()) : List.of(register(name));
        return control.call(c -> {
            final List<Row> out = new ArrayList<>();
            final View v = new View(c);
            for (final ChipRegister r : registers) {
                if (instance == null) {
                    for (final int index : v.instances(r)) {
                        out.add(v.row(r, index));
                    }
                } else {
                    out.add(v.row(r, v.index(r, instance)));
                }
            }
            return out;
        });
    }

    @Override
    public Row write(final String name, final String instance, final String value) {
        final ChipRegister r = register(name);
        final String where = r.name() + (instance == null || instance.isEmpty() ? "" : " " + instance);
        if (!r.writable()) {
            throw new RegisterException(where + ": " + r.name()
                    + " is read-only (the running model cannot change it; it follows the configuration)");
        }
        final long parsed = parseValue(where, value);
        if (parsed < 0 || parsed > r.maxValue()) {
            throw new RegisterException(
                    where + ": value " + value + " does not fit the register (0.." + r.maxValue() + ")");
        }
        if (r.qosMap() && parsed > 7 && parsed != ChipRegister.QOS_NONE) {
            throw new RegisterException(
                    where + ": value " + value + " is neither 0..7 nor " + ChipRegister.QOS_NONE + " (no entry)");
        }
        record Written(Row row, long sequence) {}
        final Written written = control.call(c -> {
            final View v = new View(c);
            final int index = v.index(r, instance == null ? "" : instance);
            final TableBatch batch = c.batch();
            try {
                batch.setKnob(r.knob(), index, r.toKnob(parsed));
            } catch (final TableException e) {
                // The model's own words, without the batch position (a register write is one update).
                throw new RegisterException(where + ": " + e.getMessage().replaceFirst("^update \\d+: ", ""));
            }
            final long sequence = batch.commit();
            return new Written(v.row(r, index), sequence);
        });
        if (applyTimeout != null) {
            try {
                control.awaitApplied(written.sequence(), applyTimeout);
            } catch (final TimeoutException e) {
                throw new RegisterException(where + ": written, but the data plane did not apply it within "
                        + applyTimeout.toMillis() + " ms");
            }
        }
        return written.row();
    }

    private static ChipRegister register(final String name) {
        try {
            return ChipRegister.valueOf(name.toUpperCase(Locale.ROOT));
        } catch (final IllegalArgumentException e) {
            throw new RegisterException("no register named " + printable(name) + " (`show registers` lists them)");
        }
    }

    private static long parseValue(final String where, final String value) {
        try {
            final String v = value.trim();
            return v.startsWith("0x") || v.startsWith("0X") ? Long.parseLong(v.substring(2), 16) : Long.parseLong(v);
        } catch (final NumberFormatException e) {
            throw new RegisterException(where + ": value " + printable(value) + " is not a number (decimal or 0x hex)");
        }
    }

    private static String printable(final String s) {
        final StringBuilder out = new StringBuilder();
        for (int i = 0; i < s.length() && out.length() < 64; i++) {
            final char c = s.charAt(i);
            out.append(c < 0x20 || c == 0x7f ? '?' : c);
        }
        return out.toString();
    }

    /** One look at the model, on the control thread. */
    private final class View {
        private final PipelineControl control;
        private final RuntimeKnobs knobs;
        private final LiveConfig live;
        private final List<String> ports;

        View(final PipelineControl control) {
            this.control = control;
            this.knobs = control.runtimeKnobs();
            this.live = new LiveConfig(SwitchConfig.of(control).compiled(), tmOptions);
            this.ports = control.portNames();
        }

        List<Integer> instances(final ChipRegister r) {
            final List<Integer> out = new ArrayList<>();
            switch (r.scope()) {
                case SWITCH -> out.add(0);
                case PORT, QUEUE, PG -> {
                    final int per = r.scope() == ChipRegister.Scope.PORT ? 1 : 8;
                    for (int p = 0; p < ports.size(); p++) {
                        if (ports.get(p) == null) {
                            continue;
                        }
                        for (int k = 0; k < per; k++) {
                            final int index = p * per + k;
                            if (r.knob() == null || knobs.applicable(r.knob(), index)) {
                                out.add(index);
                            }
                        }
                    }
                }
                case POOL -> {
                    for (int i = 0; i < live.poolNames().size(); i++) {
                        out.add(i);
                    }
                }
                case DSCP, CLASS -> {
                    for (int i = 0; i < knobs.size(r.knob()); i++) {
                        out.add(i);
                    }
                }
                case GROUP -> {
                    for (int g = 0; g < control.sizing().maxGroups(); g++) {
                        if (knobs.groupDefined(g)) {
                            out.add(g);
                        }
                    }
                }
            }
            return out;
        }

        int index(final ChipRegister r, final String instance) {
            final String where = r.name() + " " + printable(instance);
            switch (r.scope()) {
                case SWITCH -> {
                    if (!instance.isEmpty()) {
                        throw new RegisterException(where + ": " + r.name() + " is switch-wide (no instance)");
                    }
                    return 0;
                }
                case PORT -> {
                    return port(where, instance);
                }
                case QUEUE, PG -> {
                    final int bar = instance.indexOf('|');
                    final String what = r.scope() == ChipRegister.Scope.QUEUE ? "queue" : "priority group";
                    if (bar < 0) {
                        throw new RegisterException(where + ": give port and " + what + " (EthernetN|0..7)");
                    }
                    final int port = port(where, instance.substring(0, bar));
                    final int k = small(where, instance.substring(bar + 1), 8, what);
                    return port * 8 + k;
                }
                case POOL -> {
                    final int i = live.poolNames().indexOf(instance);
                    if (i < 0) {
                        throw new RegisterException(where + ": no BUFFER_POOL " + printable(instance) + " (pools: "
                                + live.poolNames() + ")");
                    }
                    return i;
                }
                case DSCP -> {
                    return small(where, instance, 64, "DSCP");
                }
                case CLASS -> {
                    return small(where, instance, 8, "traffic class / PCP");
                }
                case GROUP -> {
                    final int g = small(where, instance, control.sizing().maxGroups(), "group id");
                    if (!knobs.groupDefined(g)) {
                        throw new RegisterException(where + ": no next-hop group " + g);
                    }
                    return g;
                }
            }
            throw new IllegalStateException(r.scope().name());
        }

        private int port(final String where, final String name) {
            final int p = ports.indexOf(name);
            if (p < 0) {
                throw new RegisterException(where + ": no port " + printable(name) + " in the configuration");
            }
            return p;
        }

        private static int small(final String where, final String text, final int limit, final String what) {
            try {
                final int v = Integer.parseInt(text);
                if (v >= 0 && v < limit) {
                    return v;
                }
            } catch (final NumberFormatException e) {
                // refused below
            }
            throw new RegisterException(where + ": " + what + " must be 0.." + (limit - 1));
        }

        Row row(final ChipRegister r, final int index) {
            final long value = r.writable() ? r.fromKnob(knobs.value(r.knob(), index)) : r.readConfigured(live, index);
            return new Row(
                    r.name(),
                    label(r, index),
                    r.address(index),
                    value,
                    r.unit(),
                    r.writable() ? "RW" : "RO",
                    decode(r, value));
        }

        private String label(final ChipRegister r, final int index) {
            return switch (r.scope()) {
                case SWITCH -> "";
                case PORT -> ports.get(index);
                case QUEUE, PG -> ports.get(index / 8) + "|" + index % 8;
                case POOL -> live.poolNames().get(index);
                case GROUP, DSCP, CLASS -> Integer.toString(index);
            };
        }
    }

    /** Multi-field registers: the names of the set bits (masks) or the enumeration's name. */
    static String decode(final ChipRegister r, final long value) {
        if (r.fields().size() > 1) {
            final StringBuilder out = new StringBuilder();
            for (final ChipRegister.BitField f : r.fields()) {
                if ((value >>> f.lsb() & 1) != 0) {
                    out.append(out.isEmpty() ? "" : ",").append(f.name());
                }
            }
            return out.toString();
        }
        return switch (r) {
            case HASH_ALGORITHM -> {
                for (final io.asicemu.flowlet.hash.HashAlgorithm a : io.asicemu.flowlet.hash.HashAlgorithm.values()) {
                    if (a.saiValue() == value) {
                        yield a.name();
                    }
                }
                yield "";
            }
            case PFCWD_ACTION ->
                value == 0 ? "none" : io.asicemu.tm.config.PfcWdAction.values()[(int) value - 1].name();
            case ARS_GROUP_MODE ->
                switch ((int) value) {
                    case 0 -> "hash";
                    case 1 -> "flowlet_quality";
                    case 2 -> "flowlet_random";
                    default -> "per_packet_spray";
                };
            default -> "";
        };
    }
}
