#!/usr/bin/python3
"""The oracle of RouteMessageDecoderTest: rtnetlink route messages encoded by pyroute2 (Debian's python3-pyroute2),
not by our code. Prints one line per case: its name and the netlink bytes (hex, host byte order), several messages
concatenated where a case says so. The test states what each case must decode to."""
from pyroute2.netlink.rtnl.rtmsg import rtmsg

RTM_NEWROUTE, RTM_DELROUTE = 24, 25


def route(msg_type, family, dst_len, table, proto, rtype, attrs):
    m = rtmsg()
    m['header']['type'] = msg_type
    m['family'] = family
    m['dst_len'] = dst_len
    m['table'] = table
    m['proto'] = proto
    m['type'] = rtype
    m['scope'] = 0
    m['attrs'] = attrs
    m.encode()
    return bytes(m.data)


cases = {
    'v4_single': route(RTM_NEWROUTE, 2, 24, 254, 196, 1,
                       [('RTA_DST', '10.2.0.0'), ('RTA_PRIORITY', 20), ('RTA_GATEWAY', '10.0.1.2'), ('RTA_OIF', 3)]),
    'v4_ecmp': route(RTM_NEWROUTE, 2, 24, 254, 186, 1,
                     [('RTA_DST', '10.1.0.0'),
                      ('RTA_MULTIPATH', [{'oif': 3, 'hops': 0, 'attrs': [('RTA_GATEWAY', '10.0.1.2')]},
                                         {'oif': 4, 'hops': 4, 'attrs': [('RTA_GATEWAY', '10.0.2.2')]}])]),
    'v4_blackhole': route(RTM_NEWROUTE, 2, 16, 254, 196, 6, [('RTA_DST', '10.3.0.0')]),
    'v4_unreachable': route(RTM_NEWROUTE, 2, 16, 254, 196, 7, [('RTA_DST', '10.4.0.0')]),
    'v4_prohibit': route(RTM_NEWROUTE, 2, 16, 254, 196, 8, [('RTA_DST', '10.5.0.0')]),
    'v4_default': route(RTM_NEWROUTE, 2, 0, 254, 186, 1,
                        [('RTA_DST', '0.0.0.0'), ('RTA_GATEWAY', '10.0.1.2'), ('RTA_OIF', 3)]),
    'v4_default_no_dst': route(RTM_NEWROUTE, 2, 0, 254, 186, 1, [('RTA_GATEWAY', '10.0.1.2'), ('RTA_OIF', 3)]),
    'v4_host_connected': route(RTM_NEWROUTE, 2, 32, 254, 196, 1, [('RTA_DST', '10.9.9.9'), ('RTA_OIF', 4)]),
    'v6_single': route(RTM_NEWROUTE, 10, 48, 254, 186, 1,
                       [('RTA_DST', '2001:db8:1::'), ('RTA_GATEWAY', 'fe80::1'), ('RTA_OIF', 3),
                        ('RTA_PRIORITY', 1024)]),
    'v6_ecmp_connected': route(RTM_NEWROUTE, 10, 64, 254, 196, 1,
                               [('RTA_DST', '2001:db8:2::'),
                                ('RTA_MULTIPATH', [{'oif': 3, 'hops': 1, 'attrs': []},
                                                   {'oif': 99, 'hops': 0, 'attrs': [('RTA_GATEWAY', 'fe80::2')]}])]),
    'v6_delete': route(RTM_DELROUTE, 10, 48, 254, 186, 1, [('RTA_DST', '2001:db8:1::')]),
    'v4_delete': route(RTM_DELROUTE, 2, 24, 254, 196, 1, [('RTA_DST', '10.2.0.0')]),
    'other_table': route(RTM_NEWROUTE, 2, 24, 100, 186, 1,
                         [('RTA_DST', '10.6.0.0'), ('RTA_GATEWAY', '10.0.1.2'), ('RTA_OIF', 3)]),
    'other_table_attr': route(RTM_NEWROUTE, 2, 24, 0, 186, 1,
                              [('RTA_DST', '10.6.0.0'), ('RTA_TABLE', 1001), ('RTA_GATEWAY', '10.0.1.2'),
                               ('RTA_OIF', 3)]),
    'main_table_attr': route(RTM_NEWROUTE, 2, 24, 0, 186, 1,
                             [('RTA_DST', '10.7.0.0'), ('RTA_TABLE', 254), ('RTA_GATEWAY', '10.0.1.2'),
                              ('RTA_OIF', 3)]),
    'local': route(RTM_NEWROUTE, 2, 32, 254, 2, 2, [('RTA_DST', '10.0.1.1'), ('RTA_OIF', 3)]),
    'mpls_family': route(RTM_NEWROUTE, 28, 20, 254, 186, 1, []),
    'no_nexthop': route(RTM_NEWROUTE, 2, 24, 254, 186, 1, [('RTA_DST', '10.8.0.0')]),
}
cases['two_messages'] = cases['v4_single'] + cases['v4_delete']

for name, data in cases.items():
    print(name, data.hex())
