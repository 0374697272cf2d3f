-- SELECT g_orders_euros(c0) AS result FROM looplift_golden_input
SELECT `looplift_euros_fc535e0cd6`((c0)) AS result FROM looplift_golden_input
