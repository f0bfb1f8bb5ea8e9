package io.asicemu.p4rt.adapter;

import io.asicemu.p4rt.adapter.PipelineTableBackend.Refusal;
import io.asicemu.p4rt.backend.ActionCall;
import io.asicemu.p4rt.backend.FieldMatchValue;
import io.asicemu.p4rt.backend.P4Entity;
import io.asicemu.p4rt.backend.UpdateStatus;
import io.asicemu.p4rt.info.P4InfoModel;
import io.asicemu.p4rt.info.TableInfo;
import io.asicemu.pipeline.control.PipelineControl;
import io.asicemu.pipeline.table.AclEgressRule;

/**
 * Compiles one entry of {@code acl_egress_table} into the pipeline's {@link AclEgressRule}: ternary EtherType, IPv4
 * destination, IP protocol and DSCP with any mask, the egress port as an optional match, action
 * {@code acl_egress_drop}. Stateless.
 */
final class AclEgressCompiler {
    private static final String DROP = "egress.acl_egress.acl_egress_drop";

    private AclEgressCompiler() {}

    static AclEgressRule rule(
            final String name,
            final P4Entity.TableEntry entry,
            final P4InfoModel model,
            final PipelineControl control) {
        final AclEgressRule rule = new AclEgressRule(name, entry.key().priority());
        final TableInfo table = model.table(entry.key().tableId());
        for (final FieldMatchValue m : entry.key().matches()) {
            final String field = table.field(m.fieldId()).name();
            switch (field) {
                case "ether_type" ->
                    rule.etherType(m.value().intValue(), m.mask().intValue());
                case "dst_ip" -> rule.dstIpv4(m.value().intValue(), m.mask().intValue());
                case "ip_protocol" ->
                    rule.ipProtocol(m.value().intValue(), m.mask().intValue());
                case "dscp" -> rule.dscp(m.value().intValue(), m.mask().intValue());
                case "out_port" -> {
                    final int port = m.value().intValue();
                    if (port >= control.portNames().size()) {
                        throw new Refusal(UpdateStatus.INVALID_ARGUMENT, "no port " + port);
                    }
                    rule.outPorts(port);
                }
                default ->
                    throw new Refusal(UpdateStatus.UNIMPLEMENTED, "the pipeline's egress ACL has no field " + field);
            }
        }
        final ActionCall call = PipelineTableBackend.direct(entry).call();
        final String action = model.action(call.actionId()).name();
        if (!DROP.equals(action)) {
            throw new Refusal(UpdateStatus.UNIMPLEMENTED, "the pipeline has no egress ACL action " + action);
        }
        return rule.drop(true);
    }
}
