/**
 * Capture files: {@link io.asicemu.parser.pcap.CaptureReader#open} reads pcap (both byte orders, µs/ns) and pcapng in
 * place; {@link io.asicemu.parser.pcap.PcapWriter} writes nanosecond pcap.
 */
package io.asicemu.parser.pcap;
