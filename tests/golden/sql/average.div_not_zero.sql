-- SELECT g_average_div_not_zero(c0, c1) AS result FROM looplift_golden_input
SELECT `looplift_div_not_zero_00aa941cdc`((c0), (c1)) AS result FROM looplift_golden_input
