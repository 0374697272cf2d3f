-- SELECT * FROM g_billing_invoice_lines(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_billing_invoice_lines> AS g_billing_invoice_lines
