"""Short-term memory: rolling summaries, session bridges, and the budgeted prompt composer."""
