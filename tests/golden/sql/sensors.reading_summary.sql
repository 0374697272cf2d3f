-- SELECT g_sensors_reading_summary(`c0`, `c1`) AS result FROM looplift_golden_input
SELECT `looplift_ref_g_sensors_reading_summary`(collect_list(named_struct('f0', (`c0`), 'f1', (`c1`)))) AS result FROM looplift_golden_input
