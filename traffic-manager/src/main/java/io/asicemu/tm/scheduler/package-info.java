/** Queue selection (STRICT, DWRR, WRR) and port serialization with the optional port shaper. */
package io.asicemu.tm.scheduler;
