package io.asicemu.p4rt.adapter;

import io.asicemu.p4rt.adapter.PipelineTableBackend.Refusal;
import io.asicemu.p4rt.backend.ActionCall;
import io.asicemu.p4rt.backend.FieldMatchValue;
import io.asicemu.p4rt.backend.P4Entity;
import io.asicemu.p4rt.backend.UpdateStatus;
import io.asicemu.p4rt.info.P4InfoModel;
import io.asicemu.p4rt.info.TableInfo;
import io.asicemu.pipeline.control.PipelineControl;
import io.asicemu.pipeline.table.AclAction;
import io.asicemu.pipeline.table.AclRule;
import java.math.BigInteger;

/**
 * Compiles one entry of {@code acl_ingress_table} into the pipeline's {@link AclRule}, with its direct meter (RFC 2698
 * trTCM, bytes; red is dropped), the CPU queue of trap/copy (policed by that queue's CoPP meter) and the clone
 * session of mirror. The pipeline matches IP addresses by prefix and protocol/DSCP exactly, so other ternary masks
 * are refused (INVALID_ARGUMENT). Stateless.
 */
final class AclCompiler {
    private AclCompiler() {}

    static AclRule rule(
            final String name,
            final P4Entity.TableEntry entry,
            final P4InfoModel model,
            final PipelineControl control) {
        final AclRule rule = new AclRule(name, entry.key().priority());
        final TableInfo table = model.table(entry.key().tableId());
        for (final FieldMatchValue m : entry.key().matches()) {
            match(rule, table.field(m.fieldId()).name(), m, control);
        }
        final ActionCall call = PipelineTableBackend.direct(entry).call();
        switch (model.action(call.actionId()).name()) {
            case "ingress.acl_ingress.acl_drop" -> rule.action(AclAction.DROP);
            case "ingress.acl_ingress.acl_trap" ->
                rule.action(AclAction.TRAP).cpuQueue(call.params().get(0).intValue());
            case "ingress.acl_ingress.acl_copy" ->
                rule.action(AclAction.COPY).cpuQueue(call.params().get(0).intValue());
            case "ingress.acl_ingress.acl_mirror" ->
                rule.mirror(call.params().get(0).intValue());
            case "ingress.acl_ingress.acl_set_tc" ->
                rule.setTc(call.params().get(0).intValue());
            case "ingress.acl_ingress.acl_set_dscp" ->
                rule.setDscp(call.params().get(0).intValue());
            default ->
                throw new Refusal(
                        UpdateStatus.UNIMPLEMENTED,
                        "the pipeline has no ACL action "
                                + model.action(call.actionId()).name());
        }
        return rule.meter(PipelineCompiler.meterConfig(entry.meter()));
    }

    private static void match(
            final AclRule rule, final String field, final FieldMatchValue m, final PipelineControl control) {
        switch (field) {
            case "is_ipv4" -> rule.ipVersion(m.value().signum() == 0 ? 0 : 4);
            case "is_ipv6" -> rule.ipVersion(m.value().signum() == 0 ? 0 : 6);
            case "ether_type" -> rule.etherType(m.value().intValue(), m.mask().intValue());
            case "src_mac" -> rule.srcMac(m.value().longValue(), m.mask().longValue());
            case "dst_mac" -> rule.dstMac(m.value().longValue(), m.mask().longValue());
            case "src_ip" -> rule.srcIpv4(m.value().intValue(), prefixLength(m.mask(), 32, field));
            case "dst_ip" -> rule.dstIpv4(m.value().intValue(), prefixLength(m.mask(), 32, field));
            case "src_ipv6" ->
                rule.srcIpv6(
                        m.value().shiftRight(64).longValue(),
                        m.value().longValue(),
                        prefixLength(m.mask(), 128, field));
            case "dst_ipv6" ->
                rule.dstIpv6(
                        m.value().shiftRight(64).longValue(),
                        m.value().longValue(),
                        prefixLength(m.mask(), 128, field));
            case "ip_protocol" -> rule.ipProtocol(exact(m, 0xff, field));
            case "dscp" -> rule.dscp(exact(m, 0x3f, field));
            case "l4_src_port" -> rule.l4SrcPort(m.value().intValue(), m.high().intValue());
            case "l4_dst_port" -> rule.l4DstPort(m.value().intValue(), m.high().intValue());
            case "in_port" -> {
                final int port = m.value().intValue();
                if (port >= control.portNames().size()) {
                    throw new Refusal(UpdateStatus.INVALID_ARGUMENT, "no port " + port);
                }
                rule.inPorts(port);
            }
            default -> throw new Refusal(UpdateStatus.UNIMPLEMENTED, "the pipeline's ACL has no field " + field);
        }
    }

    private static int exact(final FieldMatchValue m, final int full, final String field) {
        if (m.mask().intValue() != full) {
            throw new Refusal(
                    UpdateStatus.INVALID_ARGUMENT,
                    field + ": the pipeline matches it exactly (mask 0x" + Integer.toHexString(full) + ")");
        }
        return m.value().intValue();
    }

    /** The length of a contiguous prefix mask, or a refusal. */
    static int prefixLength(final BigInteger mask, final int width, final String field) {
        final int ones = mask.bitCount();
        final BigInteger prefix = ones == 0
                ? BigInteger.ZERO
                : BigInteger.ONE.shiftLeft(ones).subtract(BigInteger.ONE).shiftLeft(width - ones);
        if (!prefix.equals(mask)) {
            throw new Refusal(UpdateStatus.INVALID_ARGUMENT, field + ": the pipeline matches addresses by prefix");
        }
        return ones;
    }
}
