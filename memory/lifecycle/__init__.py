"""Long-term upkeep: retention (forget, archive, purge), compaction, export/import, curation, statistics."""
