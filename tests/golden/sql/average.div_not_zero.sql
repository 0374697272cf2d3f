-- SELECT g_average_div_not_zero(c0, c1) AS result FROM looplift_golden_input
SELECT `looplift_div_not_zero_50231fbfe3`((c0), (c1)) AS result FROM looplift_golden_input
