-- SELECT * FROM g_addresses_address_history(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_addresses_address_history> AS g_addresses_address_history
