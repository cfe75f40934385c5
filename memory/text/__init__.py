"""Language-level utilities shared by every layer: token counts, dates, PII masking (English and Chinese)."""
