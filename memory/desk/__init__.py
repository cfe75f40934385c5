"""The audit desk: the product team's questions about what memory holds and why it was (not) used.

- :mod:`.explain` — why (not) retrieved: one memory's path through the real recall, stage by stage.
- :mod:`.hygiene` — the review queue: junk in the store, with evidence and one-click actions.
- :mod:`.labels_gate` — the lab's labelled queries as a regression suite (precision / recall, a CI gate).
- :mod:`.replay` — logged queries searched again under two settings: what each gains or loses.
- :mod:`.graph` — the people, pets, places and organisations a user's memories mention, as a graph.
- :mod:`.receipt` — what erasing a user removed, as a receipt kept in the audit trail.

Every module reads through the storage and acts through the existing paths (recall's own functions, the curation
operations, the audit trail); none imports the service or Streamlit.
"""
