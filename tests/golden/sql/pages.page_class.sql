-- SELECT g_pages_page_class(c0) AS result FROM looplift_golden_input
SELECT `looplift_page_class_08f4561ede`((c0)) AS result FROM looplift_golden_input
