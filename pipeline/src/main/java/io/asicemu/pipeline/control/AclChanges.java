package io.asicemu.pipeline.control;

import io.asicemu.pipeline.table.AclEgressRule;
import io.asicemu.pipeline.table.AclEgressTable;
import io.asicemu.pipeline.table.AclMeterConfig;
import io.asicemu.pipeline.table.AclMeters;
import io.asicemu.pipeline.table.AclMirrorSessions;
import io.asicemu.pipeline.table.AclRule;
import io.asicemu.pipeline.table.AclTable;
import io.asicemu.pipeline.table.ForwardingTables;
import io.asicemu.pipeline.table.PipelineSizing;
import java.util.List;
import java.util.Map;

/**
 * The ACL, meter and mirror changes of one batch: whole ingress and egress ACLs (each compiled here, off the data
 * path), clone (mirror) sessions and the CoPP meters. Data-plane edits go to the batch's {@link Staging};
 * {@link #commit()} records the rule names whose counters the data path now keeps in {@link AclState}.
 * <p>
 * Not thread safe: one control thread builds a batch.
 */
public final class AclChanges {
    private final Staging s;
    private final AclState state;
    private final PipelineSizing sizing;
    private String[] stagedIngressNames;
    private String[] stagedEgressNames;
    /** Whose ingress ACL this batch installs, if it replaces it: the configuration's or a controller's. */
    private boolean stagedConfigIngress;

    AclChanges(final Staging staging, final AclState state, final PipelineSizing sizing) {
        this.s = staging;
        this.state = state;
        this.sizing = sizing;
    }

    void replaceAcl(final List<AclRule> rules) {
        if (rules.size() > sizing.aclRules()) {
            throw s.fail(TableException.Code.RESOURCE_EXHAUSTED, rules.size() + " rules exceed " + sizing.aclRules());
        }
        final AclTable table = new AclTable(rules);
        stagedIngressNames = table.names();
        stagedConfigIngress = false;
        s.update(t -> t.acl(table));
    }

    /**
     * Installs the configuration's ingress ACL (ACL_TABLE/ACL_RULE compiled by a reconfigure); refused once a
     * controller replaced the configuration's ACL.
     */
    public void configAcl(final AclTable table) {
        if (!(stagedIngressNames != null ? stagedConfigIngress : state.configIngress())) {
            throw s.fail(
                    TableException.Code.FAILED_PRECONDITION,
                    "a controller (P4Runtime) replaced the configuration's ingress ACL: its rules are the controller's"
                            + " now (change them there, or reload the config)");
        }
        stagedIngressNames = table.names();
        stagedConfigIngress = true;
        s.update(t -> t.acl(table));
    }

    void replaceEgressAcl(final List<AclEgressRule> rules) {
        if (rules.size() > sizing.aclRules()) {
            throw s.fail(
                    TableException.Code.RESOURCE_EXHAUSTED, rules.size() + " egress rules exceed " + sizing.aclRules());
        }
        final AclEgressTable table = new AclEgressTable(rules);
        stagedEgressNames = table.names();
        s.update(t -> t.egressAcl(table));
    }

    void replaceMirrorSessions(final Map<Integer, AclMirrorSessions.Session> sessions) {
        for (final Map.Entry<Integer, AclMirrorSessions.Session> e : sessions.entrySet()) {
            for (final int port : e.getValue().ports()) {
                if (port < 0 || port >= sizing.maxPorts()) {
                    throw s.fail(
                            TableException.Code.INVALID_ARGUMENT, "mirror session " + e.getKey() + ": no port " + port);
                }
            }
        }
        final AclMirrorSessions table = new AclMirrorSessions(sessions);
        s.update(t -> t.mirrorSessions(table));
    }

    void coppMeters(final AclMeterConfig[] configs) {
        if (configs.length != ForwardingTables.CPU_QUEUES) {
            throw s.fail(
                    TableException.Code.INVALID_ARGUMENT,
                    "one CoPP meter per CPU queue (" + ForwardingTables.CPU_QUEUES + ")");
        }
        final AclMeters meters = new AclMeters(configs, true);
        s.update(t -> t.coppMeters(meters));
    }

    /** @return whether this batch replaces the egress ACL (its counters restart with the command). */
    boolean egressReplaced() {
        return stagedEgressNames != null;
    }

    /** Records the names of the replaced ACLs' rules. */
    void commit() {
        if (stagedIngressNames != null) {
            state.ingressNames(stagedIngressNames);
            state.configIngress(stagedConfigIngress);
        }
        if (stagedEgressNames != null) {
            state.egressNames(stagedEgressNames);
        }
    }
}
