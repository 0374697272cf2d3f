-- SELECT g_billing_plan_fee(c0) AS result FROM looplift_golden_input
SELECT `looplift_plan_fee_cb6519c4c8`((c0)) AS result FROM looplift_golden_input
