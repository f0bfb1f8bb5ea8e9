/** Deterministic pcap replay: {@link io.asicemu.pipeline.replay.Replay#run} runs the pipeline in virtual time over
 * per-port input pcaps and writes per-port output pcaps, a CPU capture and counters. */
package io.asicemu.pipeline.replay;
