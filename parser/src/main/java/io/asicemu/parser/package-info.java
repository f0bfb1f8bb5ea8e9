/**
 * Zero-copy packet parsing over {@link java.lang.foreign.MemorySegment}: {@link io.asicemu.parser.PacketParser} fills a
 * reusable {@link io.asicemu.parser.ParseResult}; header flyweights, {@link io.asicemu.parser.FrameRewriter},
 * {@link io.asicemu.parser.Icrc}, {@link io.asicemu.parser.FrameBuilder},
 * {@link io.asicemu.parser.MacControlFrames}.
 */
package io.asicemu.parser;
