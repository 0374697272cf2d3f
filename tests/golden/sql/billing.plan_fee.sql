-- SELECT g_billing_plan_fee(c0) AS result FROM looplift_golden_input
SELECT `looplift_plan_fee_c6da84a481`((c0)) AS result FROM looplift_golden_input
