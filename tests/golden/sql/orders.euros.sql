-- SELECT g_orders_euros(c0) AS result FROM looplift_golden_input
SELECT `looplift_euros_7905c14083`((c0)) AS result FROM looplift_golden_input
