-- SELECT g_regex_text_clean_text(c0) AS result FROM looplift_golden_input
SELECT `looplift_clean_text_a45c78bcfd`((c0)) AS result FROM looplift_golden_input
