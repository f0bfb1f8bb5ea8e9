package io.asicemu.scenario;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/** Expands workload patterns into flows; seeded, so the same scenario gives the same flows. */
final class Workloads {
    private Workloads() {}

    static List<ScenarioSpec.FlowSpec> expand(
            List<ScenarioSpec.FlowSpec> flows, List<ScenarioSpec.WorkloadSpec> workloads, long seed) {
        List<ScenarioSpec.FlowSpec> all = new ArrayList<>(flows);
        int index = 0;
        for (ScenarioSpec.WorkloadSpec w : workloads) {
            String field = "workloads[" + index + "]";
            String name = w.name() == null ? w.type() + index : w.name();
            if (w.type() == null) {
                throw new ScenarioException(field + ".type: incast, permutation or all-to-all");
            }
            switch (w.type()) {
                case "incast" -> {
                    if (w.senders() == null || w.senders().isEmpty() || w.receiver() == null) {
                        throw new ScenarioException(field + ": incast needs senders and a receiver");
                    }
                    for (String from : w.senders()) {
                        all.add(flow(w, name, from, w.receiver()));
                    }
                }
                case "permutation" -> {
                    List<String> hosts = hosts(w, field);
                    int[] target = derangement(hosts.size(), new SplittableRandom(seed * 31 + index));
                    for (int i = 0; i < hosts.size(); i++) {
                        all.add(flow(w, name, hosts.get(i), hosts.get(target[i])));
                    }
                }
                case "all-to-all" -> {
                    List<String> hosts = hosts(w, field);
                    for (String from : hosts) {
                        for (String to : hosts) {
                            if (!from.equals(to)) {
                                all.add(flow(w, name, from, to));
                            }
                        }
                    }
                }
                default ->
                    throw new ScenarioException(
                            field + ".type: \"" + w.type() + "\" is not incast, permutation or all-to-all");
            }
            index++;
        }
        return all;
    }

    private static List<String> hosts(ScenarioSpec.WorkloadSpec w, String field) {
        if (w.hosts() == null || w.hosts().size() < 2) {
            throw new ScenarioException(field + ": " + w.type() + " needs at least two hosts");
        }
        return w.hosts();
    }

    private static ScenarioSpec.FlowSpec flow(ScenarioSpec.WorkloadSpec w, String name, String from, String to) {
        return new ScenarioSpec.FlowSpec(
                name + "-" + from + "-" + to,
                from,
                to,
                w.bytes(),
                w.startUs(),
                w.qps(),
                w.messages(),
                w.sizeCdf(),
                w.meanGapUs());
    }

    /** A permutation with no fixed point (Sattolo's algorithm gives one cycle through every host). */
    static int[] derangement(int n, SplittableRandom random) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i);
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        return p;
    }

    /** Refuses a CDF that is not rows of [bytes, probability], non-decreasing, ending at probability 1. */
    static void validateCdf(List<List<Double>> cdf, String field) {
        double prevBytes = 0;
        double prevP = 0;
        if (cdf.isEmpty()) {
            throw new ScenarioException(field + ".sizeCdf: empty");
        }
        for (List<Double> row : cdf) {
            if (row == null || row.size() != 2 || row.get(0) == null || row.get(1) == null) {
                throw new ScenarioException(field + ".sizeCdf: rows are [bytes, probability]");
            }
            if (row.get(1) < prevP || row.get(0) < prevBytes || row.get(1) > 1) {
                throw new ScenarioException(
                        field + ".sizeCdf: bytes and probabilities must not decrease, " + "probabilities in 0..1");
            }
            prevBytes = row.get(0);
            prevP = row.get(1);
        }
        if (prevP != 1) {
            throw new ScenarioException(field + ".sizeCdf: the last probability must be 1");
        }
    }

    /** Draws a message size from a CDF of {bytes, cumulative probability} rows, interpolating linearly. */
    static long drawSize(List<List<Double>> cdf, SplittableRandom random, String field) {
        double u = random.nextDouble();
        double prevBytes = 0;
        double prevP = 0;
        for (List<Double> row : cdf) {
            if (row.size() != 2) {
                throw new ScenarioException(field + ".sizeCdf: rows are [bytes, probability]");
            }
            double bytes = row.get(0);
            double p = row.get(1);
            if (p < prevP || bytes < prevBytes || p > 1) {
                throw new ScenarioException(
                        field + ".sizeCdf: bytes and probabilities must not decrease, " + "probabilities in 0..1");
            }
            if (u <= p) {
                double f = p == prevP ? 1 : (u - prevP) / (p - prevP);
                return Math.max(1, Math.round(prevBytes + f * (bytes - prevBytes)));
            }
            prevBytes = bytes;
            prevP = p;
        }
        if (prevP < 1) {
            throw new ScenarioException(field + ".sizeCdf: the last probability must be 1");
        }
        return Math.max(1, Math.round(prevBytes));
    }
}
