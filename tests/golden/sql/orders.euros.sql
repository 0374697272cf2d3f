-- SELECT g_orders_euros(c0) AS result FROM looplift_golden_input
SELECT `looplift_euros_17248c0d5b`((c0)) AS result FROM looplift_golden_input
