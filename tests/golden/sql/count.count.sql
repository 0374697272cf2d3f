-- SELECT g_count_count(`c0`, `c1`) AS result FROM looplift_golden_input
SELECT (coalesce(sum(1L), 0)) AS result FROM looplift_golden_input
