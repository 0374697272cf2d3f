-- SELECT g_orders_euros(c0) AS result FROM looplift_golden_input
SELECT `looplift_euros_ed7a2ed99a`((c0)) AS result FROM looplift_golden_input
