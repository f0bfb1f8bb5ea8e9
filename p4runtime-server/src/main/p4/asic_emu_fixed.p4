/*
 * asic-emu fixed pipeline, documented in P4_16 (v1model style). It needs no compiler: the switch is fixed-function
 * and serves the hand-written P4Info in src/main/resources/io/asicemu/p4rt/info/asic_emu_fixed.p4info.txtpb.
 * Every object carries the same @name and @id as in that P4Info; PipelineSourceConsistencyTest keeps the two in step.
 * Table sizes are real limits of the emulated chip: a full table answers RESOURCE_EXHAUSTED.
 */
#include <core.p4>
#include <v1model.p4>

typedef bit<16> port_id_t;
typedef bit<10> vrf_id_t;
typedef bit<16> nexthop_id_t;
typedef bit<16> wcmp_group_id_t;
typedef bit<16> router_interface_id_t;
typedef bit<128> neighbor_id_t;

// Packet I/O with the controller (P4Runtime PacketIn / PacketOut metadata).
@controller_header("packet_in") @name("packet_in") @id(0x04000001)
header packet_in_header_t {
    bit<16> ingress_port;
    bit<16> target_egress_port;
    bit<8> punt_reason;
}
@controller_header("packet_out") @name("packet_out") @id(0x04000002)
header packet_out_header_t {
    bit<16> egress_port;
    bit<1> submit_to_ingress;
    @padding bit<7> unused_pad;
}
struct l2_learn_t {
    bit<12> vlan_id;
    bit<48> src_mac;
    bit<16> port;
}

struct local_metadata_t {
    vrf_id_t vrf_id; bool admit_to_l3; nexthop_id_t nexthop_id; wcmp_group_id_t wcmp_group_id;
    router_interface_id_t router_interface_id; neighbor_id_t neighbor_id; bit<3> tc; bit<3> queue; bit<3> pg;
    bit<8> punt_reason; bit<16> mirror_session_id; bool is_ipv4; bool is_ipv6;
}

@name("NoAction") @id(0x01000001)
action NoAction() { }
control ingress(inout headers_t hdr, inout local_metadata_t local_metadata, inout standard_metadata_t standard_metadata) {
    @name("ingress.drop") @id(0x01000002)
    action drop() { /* see pipeline stage ingress */ }
    @name("ingress.trap") @id(0x01000003)
    action trap(bit<8> punt_reason) { /* see pipeline stage ingress */ }
    @name("ingress.l3_admit.admit_to_l3") @id(0x01000004)
    action admit_to_l3() { /* see pipeline stage l3_admit */ }
    @name("ingress.routing_lookup.set_nexthop_id") @id(0x01000005)
    action set_nexthop_id(@refers_to(nexthop_table, nexthop_id) bit<16> nexthop_id) { /* see pipeline stage routing_lookup */ }
    @name("ingress.routing_lookup.set_wcmp_group_id") @id(0x01000006)
    action set_wcmp_group_id(@refers_to(wcmp_group_table, wcmp_group_id) bit<16> wcmp_group_id) { /* see pipeline stage routing_lookup */ }
    @name("ingress.routing_resolution.set_port_and_src_mac") @id(0x01000007)
    action set_port_and_src_mac(bit<16> port, bit<48> src_mac) { /* see pipeline stage routing_resolution */ }
    @name("ingress.routing_resolution.set_dst_mac") @id(0x01000008)
    action set_dst_mac(bit<48> dst_mac) { /* see pipeline stage routing_resolution */ }
    @name("ingress.routing_resolution.set_ip_nexthop") @id(0x01000009)
    action set_ip_nexthop(@refers_to(router_interface_table, router_interface_id) bit<16> router_interface_id, bit<128> neighbor_id) { /* see pipeline stage routing_resolution */ }
    @name("ingress.routing_resolution.set_nexthop_id") @id(0x0100000a)
    action set_nexthop_id(@refers_to(nexthop_table, nexthop_id) bit<16> nexthop_id) { /* see pipeline stage routing_resolution */ }
    @name("ingress.l2.l2_forward") @id(0x0100000b)
    action l2_forward(bit<16> port) { /* see pipeline stage l2 */ }
    @name("ingress.l2.vlan_allow") @id(0x0100000c)
    action vlan_allow(@refers_to(builtin::multicast_group_table, multicast_group_id) bit<16> flood_group) { /* see pipeline stage l2 */ }
    @name("ingress.l2.make_tagged_member") @id(0x0100000d)
    action make_tagged_member() { /* see pipeline stage l2 */ }
    @name("ingress.l2.make_untagged_member") @id(0x0100000e)
    action make_untagged_member() { /* see pipeline stage l2 */ }
    @name("ingress.acl_ingress.acl_drop") @id(0x0100000f)
    action acl_drop() { /* see pipeline stage acl_ingress */ }
    @name("ingress.acl_ingress.acl_trap") @id(0x01000010)
    action acl_trap(bit<3> cpu_queue, bit<8> punt_reason) { /* see pipeline stage acl_ingress */ }
    @name("ingress.acl_ingress.acl_copy") @id(0x01000011)
    action acl_copy(bit<3> cpu_queue, bit<8> punt_reason) { /* see pipeline stage acl_ingress */ }
    @name("ingress.acl_ingress.acl_set_tc") @id(0x01000012)
    action acl_set_tc(bit<3> tc) { /* see pipeline stage acl_ingress */ }
    @name("ingress.acl_ingress.acl_set_dscp") @id(0x01000013)
    action acl_set_dscp(bit<6> dscp) { /* see pipeline stage acl_ingress */ }
    @name("ingress.acl_ingress.acl_mirror") @id(0x01000014)
    action acl_mirror(bit<16> mirror_session_id) { /* see pipeline stage acl_ingress */ }
    @name("ingress.qos.set_tc") @id(0x01000016)
    action set_tc(bit<3> tc) { /* see pipeline stage qos */ }
    @name("ingress.qos.set_queue") @id(0x01000017)
    action set_queue(bit<3> queue) { /* see pipeline stage qos */ }
    @name("ingress.qos.set_pg") @id(0x01000018)
    action set_pg(bit<3> pg) { /* see pipeline stage qos */ }
    @name("ingress.routing_lookup.vrf_allow") @id(0x01000019)
    action vrf_allow() { /* see pipeline stage routing_lookup */ }
    @name("ingress.port_in_counter") @id(0x12000001)
    counter(256, counter_type_t.packets_and_bytes) port_in_counter;
    @name("ingress.drop_reason_counter") @id(0x12000003)
    counter(64, counter_type_t.packets) drop_reason_counter;
    @name("ingress.copp.cpu_queue_meter") @id(0x14000001)
    meter(8, meter_type_t.packets) cpu_queue_meter;
    @name("ingress.acl_ingress.acl_ingress_counter") @id(0x13000001)
    direct_counter(counter_type_t.packets_and_bytes) acl_ingress_counter;
    @name("ingress.acl_ingress.acl_ingress_meter") @id(0x15000001)
    direct_meter<bit<2>>(meter_type_t.bytes) acl_ingress_meter;
    @max_group_size(256) @selector_modes("hash", "flowlet", "ars")
    @name("ingress.routing_resolution.wcmp_group_selector") @id(0x11000001)
    action_selector(HashAlgorithm.crc32, 4096, 16) wcmp_group_selector;
    // digest<l2_learn_t>: L2 learning of unknown source MACs
    @name("ingress.l2.l2_learn_digest") @id(0x17000001)
    // digest<l2_learn_t>(1, { ... }) is called as l2_learn_digest in apply
    @name("ingress.l3_admit.l3_admit_table") @id(0x02000001)
    table l3_admit_table {
        key = {
            local_metadata.dst_mac : ternary @id(1) @name("dst_mac"); // bit<48>
            local_metadata.in_port : optional @id(2) @name("in_port"); // bit<16>
        }
        actions = {
            @tableonly admit_to_l3;
            @defaultonly NoAction;
        }
        size = 64;
    }
    @name("ingress.routing_lookup.vrf_table") @id(0x02000002)
    table vrf_table {
        key = {
            local_metadata.vrf_id : exact @id(1) @name("vrf_id"); // bit<10>
        }
        actions = {
            @tableonly vrf_allow;
            @defaultonly NoAction;
        }
        size = 64;
    }
    @name("ingress.routing_lookup.ipv4_table") @id(0x02000003)
    table ipv4_table {
        key = {
            local_metadata.vrf_id : exact @id(1) @name("vrf_id"); // bit<10>
            local_metadata.ipv4_dst : lpm @id(2) @name("ipv4_dst"); // bit<32>
        }
        actions = {
            set_nexthop_id;
            set_wcmp_group_id;
            drop;
            trap;
        }
        size = 131072;
    }
    @name("ingress.routing_lookup.ipv6_table") @id(0x02000004)
    table ipv6_table {
        key = {
            local_metadata.vrf_id : exact @id(1) @name("vrf_id"); // bit<10>
            local_metadata.ipv6_dst : lpm @id(2) @name("ipv6_dst"); // bit<128>
        }
        actions = {
            set_nexthop_id;
            set_wcmp_group_id;
            drop;
            trap;
        }
        size = 17000;
    }
    @name("ingress.routing_resolution.router_interface_table") @id(0x02000005)
    table router_interface_table {
        key = {
            local_metadata.router_interface_id : exact @id(1) @name("router_interface_id"); // bit<16>
        }
        actions = {
            @tableonly set_port_and_src_mac;
            @defaultonly NoAction;
        }
        size = 256;
    }
    @name("ingress.routing_resolution.neighbor_table") @id(0x02000006)
    table neighbor_table {
        key = {
            local_metadata.router_interface_id : exact @id(1) @name("router_interface_id")
                @refers_to(router_interface_table, router_interface_id); // bit<16>
            local_metadata.neighbor_id : exact @id(2) @name("neighbor_id"); // bit<128>
        }
        actions = {
            @tableonly set_dst_mac;
            @defaultonly NoAction;
        }
        size = 1024;
    }
    @name("ingress.routing_resolution.nexthop_table") @id(0x02000007)
    table nexthop_table {
        key = {
            local_metadata.nexthop_id : exact @id(1) @name("nexthop_id"); // bit<16>
        }
        actions = {
            @tableonly set_ip_nexthop;
            @defaultonly NoAction;
        }
        size = 1024;
    }
    @name("ingress.routing_resolution.wcmp_group_table") @id(0x02000008)
    table wcmp_group_table {
        key = {
            local_metadata.wcmp_group_id : exact @id(1) @name("wcmp_group_id"); // bit<16>
        }
        actions = {
            @tableonly set_nexthop_id;
            @defaultonly NoAction;
        }
        const default_action = NoAction;
        implementation = wcmp_group_selector;
        size = 512;
    }
    @name("ingress.l2.l2_fdb_table") @id(0x02000009)
    table l2_fdb_table {
        key = {
            local_metadata.vlan_id : exact @id(1) @name("vlan_id") @refers_to(vlan_table, vlan_id); // bit<12>
            local_metadata.dst_mac : exact @id(2) @name("dst_mac"); // bit<48>
        }
        actions = {
            @tableonly l2_forward;
            drop;
            @defaultonly NoAction;
        }
        support_timeout = true;
        size = 32768;
    }
    @name("ingress.l2.vlan_table") @id(0x0200000a)
    table vlan_table {
        key = {
            local_metadata.vlan_id : exact @id(1) @name("vlan_id"); // bit<12>
        }
        actions = {
            @tableonly vlan_allow;
            drop;
        }
        size = 4096;
    }
    @name("ingress.l2.vlan_membership_table") @id(0x0200000b)
    table vlan_membership_table {
        key = {
            local_metadata.vlan_id : exact @id(1) @name("vlan_id") @refers_to(vlan_table, vlan_id); // bit<12>
            local_metadata.port : exact @id(2) @name("port"); // bit<16>
        }
        actions = {
            @tableonly make_tagged_member;
            @tableonly make_untagged_member;
            @defaultonly NoAction;
        }
        size = 8192;
    }
    @sai_acl(INGRESS)
    @name("ingress.acl_ingress.acl_ingress_table") @id(0x0200000c)
    table acl_ingress_table {
        key = {
            local_metadata.is_ipv4 : optional @id(1) @name("is_ipv4"); // bit<1>
            local_metadata.is_ipv6 : optional @id(2) @name("is_ipv6"); // bit<1>
            local_metadata.ether_type : ternary @id(3) @name("ether_type"); // bit<16>
            local_metadata.src_mac : ternary @id(4) @name("src_mac"); // bit<48>
            local_metadata.dst_mac : ternary @id(5) @name("dst_mac"); // bit<48>
            local_metadata.src_ip : ternary @id(6) @name("src_ip"); // bit<32>
            local_metadata.dst_ip : ternary @id(7) @name("dst_ip"); // bit<32>
            local_metadata.src_ipv6 : ternary @id(8) @name("src_ipv6"); // bit<128>
            local_metadata.dst_ipv6 : ternary @id(9) @name("dst_ipv6"); // bit<128>
            local_metadata.ip_protocol : ternary @id(10) @name("ip_protocol"); // bit<8>
            local_metadata.dscp : ternary @id(11) @name("dscp"); // bit<6>
            local_metadata.l4_src_port : range @id(12) @name("l4_src_port"); // bit<16>
            local_metadata.l4_dst_port : range @id(13) @name("l4_dst_port"); // bit<16>
            local_metadata.in_port : optional @id(14) @name("in_port"); // bit<16>
        }
        actions = {
            @tableonly acl_drop;
            @tableonly acl_trap;
            @tableonly acl_copy;
            @tableonly acl_set_tc;
            @tableonly acl_set_dscp;
            @tableonly acl_mirror;
            @defaultonly NoAction;
        }
        counters = acl_ingress_counter;
        meters = acl_ingress_meter;
        size = 256;
    }
    @name("ingress.qos.dscp_to_tc_table") @id(0x0200000e)
    table dscp_to_tc_table {
        key = {
            local_metadata.dscp : exact @id(1) @name("dscp"); // bit<6>
        }
        actions = {
            set_tc;
        }
        size = 64;
    }
    @name("ingress.qos.dot1p_to_tc_table") @id(0x0200000f)
    table dot1p_to_tc_table {
        key = {
            local_metadata.pcp : exact @id(1) @name("pcp"); // bit<3>
        }
        actions = {
            set_tc;
        }
        size = 8;
    }
    @name("ingress.qos.tc_to_queue_table") @id(0x02000010)
    table tc_to_queue_table {
        key = {
            local_metadata.tc : exact @id(1) @name("tc"); // bit<3>
        }
        actions = {
            set_queue;
        }
        size = 8;
    }
    @name("ingress.qos.tc_to_pg_table") @id(0x02000011)
    table tc_to_pg_table {
        key = {
            local_metadata.tc : exact @id(1) @name("tc"); // bit<3>
        }
        actions = {
            set_pg;
        }
        size = 8;
    }
    apply { /* the staged order is drawn in the pipeline module's javadoc */ }
}
control egress(inout headers_t hdr, inout local_metadata_t local_metadata, inout standard_metadata_t standard_metadata) {
    @name("egress.acl_egress.acl_egress_drop") @id(0x01000015)
    action acl_egress_drop() { /* see pipeline stage acl_egress */ }
    @name("egress.port_out_counter") @id(0x12000002)
    counter(256, counter_type_t.packets_and_bytes) port_out_counter;
    @name("egress.acl_egress.acl_egress_counter") @id(0x13000002)
    direct_counter(counter_type_t.packets_and_bytes) acl_egress_counter;
    @sai_acl(EGRESS)
    @name("egress.acl_egress.acl_egress_table") @id(0x0200000d)
    table acl_egress_table {
        key = {
            local_metadata.ether_type : ternary @id(1) @name("ether_type"); // bit<16>
            local_metadata.dst_ip : ternary @id(2) @name("dst_ip"); // bit<32>
            local_metadata.ip_protocol : ternary @id(3) @name("ip_protocol"); // bit<8>
            local_metadata.dscp : ternary @id(4) @name("dscp"); // bit<6>
            local_metadata.out_port : optional @id(5) @name("out_port"); // bit<16>
        }
        actions = {
            @tableonly acl_egress_drop;
            @defaultonly NoAction;
        }
        counters = acl_egress_counter;
        size = 128;
    }
    apply { /* the staged order is drawn in the pipeline module's javadoc */ }
}
// Traffic-manager and ARS parameters a controller can tune (P4 registers). Writes are RegisterEntry MODIFY and take
// effect in the running data plane without resetting any table; a read before any write answers the value the
// CONFIG_DB gives. Index definitions (port = the pipeline's port index, as in packet_in/packet_out):
//   ecn_* (2048)            index = port * 8 + egress queue; min/max in bytes (max 0 = the whole buffer),
//                           probability 0..100 %, min <= max, one colour each: ecn_min/max_threshold_bytes and
//                           ecn_max_probability_percent are WRED_PROFILE's green_*, ecn_yellow_* and ecn_red_* its
//                           yellow_* and red_*; a write leaves the other colours as they are. A queue without
//                           WRED_PROFILE gets one with all colours enabled and ecn_all whose unwritten colours mark
//                           nothing (Pmax 0). SONiC semantics: marking at dequeue, 100 % at >= max.
//   pfc_xoff/xon (2048)     index = port * 8 + ingress PG; BUFFER_PROFILE xoff (headroom above reserved + shared,
//                           whose crossing sends XOFF) and xon; the PG needs a BUFFER_PG profile.
//   pfc_watchdog_* (256)    index = port, ms; detection 100..5000, restoration 100..60000 or 0 = never, both
//                           >= PFC_WD|GLOBAL POLL_INTERVAL; the port needs a PFC_WD entry.
//   flowlet_idle_time_ns(1) every group's flowlet idle time, 16000..32000000 ns.
//   hash_seed (1)           the ECMP hash seed.
//   group_selection_mode    index = wcmp_group_id (< 512): 0 hash, 1 flowlet_quality, 2 flowlet_random,
//                           3 per_packet_spray.
// An index past the chip's ports or a value out of range is INVALID_ARGUMENT; a missing profile/entry is
// FAILED_PRECONDITION; an unknown group is NOT_FOUND. The QoS map tables (qos.*) apply on every port, over the
// CONFIG_DB maps; deleting an entry restores the configured value.
control tm_and_ars_registers() {
    @name("tm.ecn_min_threshold_bytes") @id(0x16000001)
    register<bit<32>>(2048) ecn_min_threshold_bytes;
    @name("tm.ecn_max_threshold_bytes") @id(0x16000002)
    register<bit<32>>(2048) ecn_max_threshold_bytes;
    @name("tm.ecn_max_probability_percent") @id(0x16000003)
    register<bit<8>>(2048) ecn_max_probability_percent;
    @name("tm.pfc_xoff_bytes") @id(0x16000004)
    register<bit<32>>(2048) pfc_xoff_bytes;
    @name("tm.pfc_xon_bytes") @id(0x16000005)
    register<bit<32>>(2048) pfc_xon_bytes;
    @name("tm.pfc_watchdog_detection_time_ms") @id(0x16000006)
    register<bit<32>>(256) pfc_watchdog_detection_time_ms;
    @name("tm.pfc_watchdog_restoration_time_ms") @id(0x16000007)
    register<bit<32>>(256) pfc_watchdog_restoration_time_ms;
    @name("ars.flowlet_idle_time_ns") @id(0x16000008)
    register<bit<32>>(1) flowlet_idle_time_ns;
    @name("ars.hash_seed") @id(0x16000009)
    register<bit<32>>(1) hash_seed;
    @name("ars.group_selection_mode") @id(0x1600000a)
    register<bit<2>>(512) group_selection_mode;
    @name("tm.ecn_yellow_min_threshold_bytes") @id(0x1600000b)
    register<bit<32>>(2048) ecn_yellow_min_threshold_bytes;
    @name("tm.ecn_yellow_max_threshold_bytes") @id(0x1600000c)
    register<bit<32>>(2048) ecn_yellow_max_threshold_bytes;
    @name("tm.ecn_yellow_max_probability_percent") @id(0x1600000d)
    register<bit<8>>(2048) ecn_yellow_max_probability_percent;
    @name("tm.ecn_red_min_threshold_bytes") @id(0x1600000e)
    register<bit<32>>(2048) ecn_red_min_threshold_bytes;
    @name("tm.ecn_red_max_threshold_bytes") @id(0x1600000f)
    register<bit<32>>(2048) ecn_red_max_threshold_bytes;
    @name("tm.ecn_red_max_probability_percent") @id(0x16000010)
    register<bit<8>>(2048) ecn_red_max_probability_percent;
    apply { }
}
