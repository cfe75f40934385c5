"""Storage: the SQL schema and engine (the truth), the LanceDB index derived from it, embedders, integrity repair."""
