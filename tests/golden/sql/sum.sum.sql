-- SELECT g_sum_sum(`c0`, `c1`) AS result FROM looplift_golden_input
SELECT (coalesce(sum(((`c1`))), 0)) AS result FROM looplift_golden_input
