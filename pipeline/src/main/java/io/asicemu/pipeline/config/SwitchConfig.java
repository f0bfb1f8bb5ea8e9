package io.asicemu.pipeline.config;

import io.asicemu.pipeline.control.PipelineControl;
import io.asicemu.pipeline.control.RuntimeKnobs;
import io.asicemu.pipeline.control.SwitchSetup;
import io.asicemu.pipeline.control.TableBatch;
import io.asicemu.pipeline.control.TableException;
import io.asicemu.tm.TmOptions;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The config side of one switch: compiles CONFIG_DB and hands it to the control model through its public API, the
 * one P4Runtime's adapter uses. At start-up and on {@code config reload} ({@link #applyConfig}) the compiled
 * configuration is installed whole ({@link PipelineControl#install}); on a running switch ({@link #reconfigure}) the
 * difference to the configuration in force becomes staged changes of one {@link TableBatch}, validated by the control
 * model's parts as a P4Runtime Write's are, and committed as one data-plane command. The control model's refusals
 * ({@link TableException}) are restated as {@link ConfigException}s naming {@code TABLE|key|field}
 * ({@code ConfigRefusal}).
 * <p>
 * Keeps the configuration in force and renders the running config ({@link #runningConfig()}) from it and the knob
 * values the control model publishes after each commit. One per {@link PipelineControl} ({@link #of}).
 * <p>
 * Threading: the control thread (as {@link PipelineControl}); {@link #runningConfig()} and {@link #config()} from
 * any thread.
 */
public final class SwitchConfig implements PipelineControl.ConfigSource {
    private final PipelineControl control;
    private final Map<String, String> linuxOverrides;
    /** What {@link #applyConfig} last installed (the data plane's tables are its, changed in place since). */
    private volatile CompiledConfig compiled;
    /**
     * The configuration in force: the one last applied or reconfigured (validated and compiled, but after a
     * {@link #reconfigure} not installed: the data plane keeps {@link #compiled}'s tables, changed in place).
     */
    private volatile CompiledConfig inForce;
    /** The knob values {@link #inForce} gives, what {@link #runningConfig()} compares the live ones with (lazy). */
    private RuntimeKnobs.Values inForceKnobs;
    /** What {@link #runningConfig()} renders: published after each change on the control thread. */
    private volatile Running runningState;
    /** The last rendering, by the state it was rendered from (any thread renders; a race renders twice). */
    private final AtomicReference<Rendered> rendered = new AtomicReference<>();
    /** While {@link #reconfigure} commits: it renders the running config once, after it set what is in force. */
    private boolean reconfiguring;

    private SwitchConfig(final PipelineControl control, final Map<String, String> linuxOverrides) {
        this.control = control;
        this.linuxOverrides = Map.copyOf(linuxOverrides);
        control.configSource(this);
    }

    /**
     * The config side of a control model: the one registered, else a new one registered now (control thread).
     *
     * @param control the control model.
     * @return its config side.
     */
    public static SwitchConfig of(final PipelineControl control) {
        if (control.configSource() instanceof SwitchConfig s) {
            return s;
        }
        return new SwitchConfig(control, control.linuxOverrides());
    }

    /**
     * Validates and applies a whole configuration with the default traffic-manager settings; on error nothing
     * changes.
     *
     * @param db the CONFIG_DB.
     * @return the compiled configuration now in force.
     * @throws ConfigException naming table, key and field of the first problem.
     */
    public CompiledConfig applyConfig(final ConfigDb db) {
        return applyConfig(db, TmOptions.defaults());
    }

    /**
     * Validates and applies a whole configuration (start-up and {@code config reload}): compiled, then installed as
     * one command; on error nothing changes. The traffic-manager settings are part of the configuration applied.
     *
     * @param db the CONFIG_DB.
     * @param tmOptions the traffic manager's model settings (cell size, WRED and PFC options).
     * @return the compiled configuration now in force.
     * @throws ConfigException naming table, key and field of the first problem.
     */
    public CompiledConfig applyConfig(final ConfigDb db, final TmOptions tmOptions) {
        final CompiledConfig next = ConfigCompiler.compile(db, control.sizing(), linuxOverrides);
        control.install(next.setup(), tmOptions);
        compiled = next;
        inForce = next;
        inForceKnobs = null;
        runningState = null;
        publishRunning();
        return next;
    }

    /**
     * Changes the running configuration to {@code next} without a restart: validates it as {@link #applyConfig}
     * does (the same compile: schema, section parsers, bounds, cross-field checks), compares it with the
     * {@link #runningConfig()} and stages the difference as the changes a P4Runtime Write makes (knobs, router
     * interfaces, next hops, groups, routes, neighbors, VLANs, the ACL, QoS maps, port settings), validated together
     * with what controllers wrote and committed as one data-plane command: all or nothing. Tables,
     * controller-written entries, queues and counters stay. A difference the running switch cannot make (the port
     * map, the buffer pools, anything outside the tables {@code ConfigChanges} lists) is refused as needing a config
     * reload ({@link #applyConfig}), naming {@code TABLE|key|field}; docs/CONFIG.md lists what changes at run time.
     *
     * @param next the next CONFIG_DB, whole (e.g. the running config with an operator's edits).
     * @return the sequence number of the command that applies it (see {@link PipelineControl#awaitApplied}); the
     *     last one submitted when nothing differs.
     * @throws ConfigException naming table, key and field of the first problem; then nothing changed.
     */
    public long reconfigure(final ConfigDb next) {
        if (compiled == null) {
            applyConfig(next);
            return control.lastSubmitted();
        }
        refusePortsAddedOrRemoved(next);
        final Set<String> changed = changedTables(inForce.db(), next);
        // A change confined to the engines' tables (a WRED threshold, a watchdog time, the hash seed) and to ports'
        // admin status and MTU is compiled by those tables' parsers alone and leaves the pipeline's objects as they
        // are: its cost does not grow with the routes.
        final boolean inPlace = settingsOnly(inForce.db(), next, changed);
        final CompiledConfig target = inPlace
                ? ConfigCompiler.recompileSettings(inForce, next, changed)
                : ConfigCompiler.compile(next, control.sizing(), linuxOverrides);
        final RuntimeKnobs live = control.runtimeKnobs();
        final RuntimeKnobs targetKnobs = control.knobsOf(target.setup());
        final TableBatch changes = control.batch();
        ConfigChanges.stage(
                runningConfig(),
                inForce.setup().tmConfig(),
                target.db(),
                target.setup().tmConfig(),
                live,
                targetKnobs,
                changes);
        L3ConfigChanges.View l3InForce = null;
        if (!inPlace) {
            // Interfaces first (routes, next hops and neighbors use them), removed ones after what used them; L2
            // after that (a port leaving a VLAN and becoming routed, or the other way round, in one change).
            RouterInterfaceConfigChanges.add(control.l3(), changes.l3Changes(), inForce.db(), target);
            l3InForce = L3ConfigChanges.stage(control.l3(), changes.l3Changes(), inForce.db(), target);
            RouterInterfaceConfigChanges.remove(changes.l3Changes(), inForce.db(), target);
            L2ConfigChanges.stage(inForce.db(), target, changes.l2Changes());
            stageAcl(inForce.db(), target, changes);
            stageQosMaps(inForce.db(), target, changes);
        }
        stagePortSettings(inForce.db(), target, changes);
        final long sequence;
        reconfiguring = true;
        try {
            sequence = changes.size() == 0 ? control.lastSubmitted() : changes.commit();
        } finally {
            reconfiguring = false;
        }
        if (l3InForce != null) {
            control.l3()
                    .configInForce(
                            l3InForce.nextHopIds(), l3InForce.groupIds(), l3InForce.routes(), l3InForce.neighbors());
        }
        inForce = target;
        inForceKnobs = targetKnobs.snapshot();
        publishRunning();
        return sequence;
    }

    /**
     * Whether the tables in which {@code next} differs from {@code current} are all engine-only tables
     * ({@link ConfigSchema#ENGINE_ONLY_TABLES}) or PORT with the same ports and only {@link ConfigCompiler#PORT_SETTINGS}
     * differing: what {@link ConfigCompiler#recompileSettings} compiles.
     */
    private static boolean settingsOnly(final ConfigDb current, final ConfigDb next, final Set<String> changed) {
        for (final String table : changed) {
            if (table.equals("PORT")) {
                final Map<String, Map<String, String>> a = current.table("PORT");
                final Map<String, Map<String, String>> b = next.table("PORT");
                if (!a.keySet().equals(b.keySet())) {
                    return false;
                }
                for (final Map.Entry<String, Map<String, String>> port : a.entrySet()) {
                    final Map<String, String> x = new java.util.HashMap<>(port.getValue());
                    final Map<String, String> y = new java.util.HashMap<>(b.get(port.getKey()));
                    x.keySet().removeAll(ConfigCompiler.PORT_SETTINGS);
                    y.keySet().removeAll(ConfigCompiler.PORT_SETTINGS);
                    if (!x.equals(y)) {
                        return false;
                    }
                }
            } else if (!ConfigSchema.ENGINE_ONLY_TABLES.contains(table)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The tables in which two stores differ: compared by identity first (a store made from another by
     * {@link ConfigDb#withTables} shares the tables it did not change), by content otherwise.
     */
    static Set<String> changedTables(final ConfigDb a, final ConfigDb b) {
        final Set<String> tables = new java.util.LinkedHashSet<>(a.tables().keySet());
        tables.addAll(b.tables().keySet());
        tables.removeIf(t -> {
            final Map<String, Map<String, String>> x = a.table(t);
            return x == b.table(t) || x.equals(b.table(t));
        });
        return tables;
    }

    /**
     * A port added or removed is refused before anything else is checked, with that reason: compiled first, a removed
     * port's references (its INTERFACE, PORT_QOS_MAP, VLAN_MEMBER … keys) were refused instead, as if the config were
     * wrong rather than the change impossible at run time ({@code DEL PORT|Ethernet0} over Redis, issue 43).
     */
    private void refusePortsAddedOrRemoved(final ConfigDb next) {
        final java.util.Set<String> running = runningConfig().table("PORT").keySet();
        final java.util.Set<String> wanted = next.table("PORT").keySet();
        for (final String port : new TreeSet<>(running)) {
            if (!wanted.contains(port)) {
                throw new ConfigException(
                        "PORT",
                        port,
                        "",
                        "needs config reload: removing a port: " + ConfigChanges.reloadReason("PORT", ""));
            }
        }
        for (final String port : new TreeSet<>(wanted)) {
            if (!running.contains(port)) {
                throw new ConfigException(
                        "PORT",
                        port,
                        "",
                        "needs config reload: adding a port: " + ConfigChanges.reloadReason("PORT", ""));
            }
        }
    }

    /**
     * Stages PORT {@code admin_status} and {@code mtu} where the next configuration changes them (SONiC's {@code config
     * interface shutdown|startup|mtu}): the port's admin state and MTU in the tables, applied with the rest of the
     * change. An admin-down port neither takes nor sends frames (ingress and egress drops are counted, its oper status
     * goes down); the Linux link under it stays up. Speed, lanes and the port map still need a reload.
     */
    private static void stagePortSettings(
            final ConfigDb current, final CompiledConfig target, final TableBatch changes) {
        final Map<String, Map<String, String>> before = current.table("PORT");
        final Map<String, Map<String, String>> after = target.db().table("PORT");
        if (before == after) {
            return;
        }
        for (final Map.Entry<String, Integer> port : target.setup().portIndex().entrySet()) {
            final Map<String, String> a = before.getOrDefault(port.getKey(), Map.of());
            final Map<String, String> b = after.getOrDefault(port.getKey(), Map.of());
            if (!Objects.equals(a.get("admin_status"), b.get("admin_status"))
                    || !Objects.equals(a.get("mtu"), b.get("mtu"))) {
                changes.portSettings(
                        port.getValue(),
                        ConfigCompiler.portAdminUp(port.getKey(), b),
                        ConfigCompiler.portMtu(port.getKey(), b));
            }
        }
    }

    /**
     * Stages the next configuration's QoS maps when DSCP_TO_TC_MAP, DOT1P_TO_TC_MAP, TC_TO_QUEUE_MAP or the
     * PORT_QOS_MAP fields naming them differ (TC → PG and PFC stay for a reload: the traffic manager's PGs follow them).
     */
    private static void stageQosMaps(final ConfigDb current, final CompiledConfig target, final TableBatch changes) {
        boolean differs = false;
        for (final String t : ConfigChanges.QOS_MAP_TABLES) {
            differs |= !current.table(t).equals(target.db().table(t));
        }
        differs |= !ConfigChanges.qosMapFields(current).equals(ConfigChanges.qosMapFields(target.db()));
        if (differs) {
            changes.knobChanges().configQos(target.setup().tables().qos());
        }
    }

    /**
     * Stages the next configuration's ingress ACL when ACL_TABLE or ACL_RULE differ: the whole ACL, as a P4Runtime
     * Write replaces it (rule order by priority; counters follow the rule index), refused naming the first differing
     * key once a controller replaced the configuration's ACL.
     */
    private static void stageAcl(final ConfigDb current, final CompiledConfig target, final TableBatch changes) {
        String table = null;
        String key = "";
        for (final String t : new String[] {"ACL_RULE", "ACL_TABLE"}) {
            final Map<String, Map<String, String>> a = current.table(t);
            final Map<String, Map<String, String>> b = target.db().table(t);
            if (table == null && !a.equals(b)) {
                table = t;
                final TreeSet<String> keys = new TreeSet<>(a.keySet());
                keys.addAll(b.keySet());
                for (final String k : keys) {
                    if (!Objects.equals(a.get(k), b.get(k))) {
                        key = k;
                        break;
                    }
                }
            }
        }
        if (table == null) {
            return;
        }
        try {
            changes.aclChanges().configAcl(target.setup().tables().acl());
        } catch (final TableException e) {
            throw ConfigRefusal.of(table, key, "", e);
        }
    }

    /**
     * The CONFIG_DB in force as the switch runs it: the configuration last applied or reconfigured plus what runtime
     * writes changed since (a WRED threshold written on one queue shows as a WRED_PROFILE derived for that queue, see
     * {@code RunningConfig}). Feeding it to {@link #reconfigure} changes nothing. Any thread.
     *
     * @return the running config (empty before any configuration).
     */
    public ConfigDb runningConfig() {
        final Running state = runningState;
        if (state == null) {
            return new ConfigDb(Map.of());
        }
        final Rendered last = rendered.get();
        if (last != null && last.from() == state) {
            return last.db();
        }
        final ConfigDb db = RunningConfig.render(
                state.inForce().db(), state.inForce().setup().tmConfig(), state.base(), state.live());
        rendered.set(new Rendered(state, db));
        return db;
    }

    /** The config in force and the knob values: what the running config is rendered from. */
    private record Running(CompiledConfig inForce, RuntimeKnobs.Values base, RuntimeKnobs.Values live) {}

    private record Rendered(Running from, ConfigDb db) {}

    @Override
    public void knobsCommitted() {
        if (!reconfiguring) {
            publishRunning();
        }
    }

    @Override
    public void reinstall() {
        applyConfig(config());
    }

    /** Copies the knob values (a few arrays of ports × 8): the rendering itself waits for a reader. */
    private void publishRunning() {
        if (inForceKnobs == null) {
            inForceKnobs = control.knobsOf(inForce.setup()).snapshot();
        }
        runningState = new Running(inForce, inForceKnobs, control.runtimeKnobs().snapshot());
    }

    /** @return what the configuration in force compiled to (tests: whether an edit was compiled in place). */
    SwitchSetup inForceSetup() {
        return inForce.setup();
    }

    /** @return the configuration last installed by {@link #applyConfig}, or null. */
    public CompiledConfig compiled() {
        return compiled;
    }

    /**
     * @return the CONFIG_DB last applied or reconfigured, without the runtime writes since (empty before any); see
     *     {@link #runningConfig()} for the switch as it runs.
     */
    public ConfigDb config() {
        final CompiledConfig c = inForce;
        return c == null ? new ConfigDb(Map.of()) : c.db();
    }

    /** @return the control model this config side installs into. */
    public PipelineControl control() {
        return control;
    }
}
