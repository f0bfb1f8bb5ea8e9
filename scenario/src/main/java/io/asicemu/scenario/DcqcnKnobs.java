package io.asicemu.scenario;

import io.asicemu.rdma.dcqcn.DcqcnParameters;
import java.lang.reflect.RecordComponent;
import java.util.Map;

/**
 * Applies NIC knob overrides by their NIC names ({@code rpg_time_reset}, {@code dce_tcp_g}, …) to a base: scenario
 * files' {@code dcqcn} sections and {@code asic-emu host --dcqcn-knob}.
 */
public final class DcqcnKnobs {
    private static final Map<String, String> COMPONENT_BY_KNOB = Map.ofEntries(
            Map.entry("rpg_time_reset", "rpgTimeResetUs"),
            Map.entry("rpg_byte_reset", "rpgByteResetBytes"),
            Map.entry("rpg_threshold", "rpgThreshold"),
            Map.entry("rpg_max_rate", "rpgMaxRateMbps"),
            Map.entry("rpg_ai_rate", "rpgAiRateMbps"),
            Map.entry("rpg_hai_rate", "rpgHaiRateMbps"),
            Map.entry("rpg_gd", "rpgGd"),
            Map.entry("rpg_min_dec_fac", "rpgMinDecFacPercent"),
            Map.entry("rpg_min_rate", "rpgMinRateMbps"),
            Map.entry("rate_to_set_on_first_cnp", "rateToSetOnFirstCnpMbps"),
            Map.entry("dce_tcp_g", "dceTcpG"),
            Map.entry("dce_tcp_rtt", "dceTcpRttUs"),
            Map.entry("rate_reduce_monitor_period", "rateReduceMonitorPeriodUs"),
            Map.entry("initial_alpha_value", "initialAlphaValue"),
            Map.entry("clamp_tgt_rate", "clampTgtRate"),
            Map.entry("clamp_tgt_rate_after_time_inc", "clampTgtRateAfterTimeInc"),
            Map.entry("min_time_between_cnps", "minTimeBetweenCnpsUs"),
            Map.entry("cnp_dscp", "cnpDscp"),
            Map.entry("cnp_802p_prio", "cnp802pPrio"));

    private DcqcnKnobs() {}

    /**
     * @return {@code base} with the knobs in {@code overrides} (NIC name → Number or Boolean) replaced.
     * @throws ScenarioException for an unknown knob, a value of the wrong type, or one out of the knob's range.
     */
    public static DcqcnParameters apply(DcqcnParameters base, Map<String, Object> overrides) {
        RecordComponent[] components = DcqcnParameters.class.getRecordComponents();
        Object[] values = new Object[components.length];
        Class<?>[] types = new Class<?>[components.length];
        try {
            for (int i = 0; i < components.length; i++) {
                values[i] = components[i].getAccessor().invoke(base);
                types[i] = components[i].getType();
            }
            for (Map.Entry<String, Object> e : overrides.entrySet()) {
                if (e.getKey().equals("base")) {
                    continue;
                }
                String component = COMPONENT_BY_KNOB.get(e.getKey());
                if (component == null) {
                    throw new ScenarioException("dcqcn: unknown knob \"" + e.getKey() + "\" (known: "
                            + new java.util.TreeSet<>(COMPONENT_BY_KNOB.keySet()) + ")");
                }
                for (int i = 0; i < components.length; i++) {
                    if (components[i].getName().equals(component)) {
                        values[i] = convert(e.getKey(), e.getValue(), types[i]);
                    }
                }
            }
            return DcqcnParameters.class.getDeclaredConstructor(types).newInstance(values);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw new ScenarioException("dcqcn: " + e.getCause().getMessage());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Object convert(String knob, Object value, Class<?> type) {
        if (type == boolean.class) {
            if (value instanceof Boolean b) {
                return b;
            }
            if (value instanceof Number n && (n.longValue() == 0 || n.longValue() == 1)) {
                return n.longValue() == 1;
            }
        } else if (value instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())) {
            return type == int.class ? (Object) Math.toIntExact(n.longValue()) : (Object) n.longValue();
        }
        throw new ScenarioException("dcqcn: " + knob + " = " + value + " is not a " + type.getSimpleName());
    }
}
