-- SELECT g_billing_plan_fee(c0) AS result FROM looplift_golden_input
SELECT `looplift_plan_fee_dccc47cf5b`((c0)) AS result FROM looplift_golden_input
