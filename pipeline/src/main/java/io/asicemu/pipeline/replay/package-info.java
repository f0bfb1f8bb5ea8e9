/** Deterministic pcap replay: {@link io.asicemu.pipeline.replay.Replay#run} runs the pipeline in virtual time over
 * per-port input pcaps and writes per-port output pcaps, a CPU capture and counters; with
 * {@link io.asicemu.pipeline.replay.ReplayOptions#pfcLinkPartners} each input is a
 * {@link io.asicemu.pipeline.replay.LinkPartnerPort} that honours the switch's PFC frames. */
package io.asicemu.pipeline.replay;
