"""Why (not)? as a widget: one memory's path through recall for a query, stage by stage (memory.desk.explain through
the service), shown as plain text. Used by the Audit desk and the retrieval lab (click a candidate)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from memory.errors import MemLensError
from memory.service import MemoryService
from memory.storage.models import User
from pages.common import plain, short

STAGE_MARK = {True: "✔", False: "✘", None: "—"}


def show(svc: MemoryService, user: User, memory_id: str, query: str, key: str, **knobs: Any) -> None:
    """The verdict in one sentence, then every stage (a gate: ✔ / ✘; a description: ·)."""
    try:
        e = svc.explain_recall(user.external_id, memory_id, query, **knobs)
    except MemLensError as exc:
        st.error(plain(exc))
        return
    box = st.success if e["fell_out_at"] is None else st.warning
    box(plain(e["summary"]), icon=":material/route:")  # ends with "→ reached the prompt" / "→ fell out at …"
    rows = [
        {"stage": s["name"], "verdict": STAGE_MARK[s["passed"]] if s["gate"] else "·", "what happened": s["detail"]}
        for s in e["stages"]
    ]
    st.dataframe(
        pd.DataFrame(rows),
        hide_index=True,
        key=key,
        column_config={"what happened": st.column_config.TextColumn(width="large")},
    )
    st.caption(plain(f"memory: {short(e['content'], 160)} · calibration {e['calibration']}"))
