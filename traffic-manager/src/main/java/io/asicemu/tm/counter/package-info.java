/**
 * Counters as long slots named with SAI / COUNTERS_DB names, read through
 * {@link io.asicemu.tm.counter.TmCountersSnapshot}.
 */
package io.asicemu.tm.counter;
