-- SELECT g_billing_plan_fee(c0) AS result FROM looplift_golden_input
SELECT `looplift_plan_fee_937163befb`((c0)) AS result FROM looplift_golden_input
