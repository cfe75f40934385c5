"""Why (not)? as a widget: one memory's path through recall for a query, stage by stage (memory.desk.explain through
the service), shown as plain text. Used by the Audit desk, the retrieval lab (pick a candidate) and the chat panel
(pick a recalled memory of a turn: that turn's logged retrieval is explained)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import streamlit as st

from memory.errors import MemLensError
from pages.common import plain, short

if TYPE_CHECKING:
    from memory.retrieval.policy import RecallPolicy
    from memory.service import MemoryService
    from memory.storage.models import User

STAGE_MARK = {True: "✔", False: "✘", None: "—"}


def show(
    svc: MemoryService,
    user: User,
    memory_id: str,
    query: str | None,
    key: str,
    *,
    retrieval_id: int | None = None,
    policy: RecallPolicy | None = None,
) -> None:
    """The verdict in one sentence, then every stage (a gate: ✔ / ✘; a description: ·). With ``retrieval_id``: that
    logged retrieval's query and knobs, and what the log recorded then."""
    import pandas as pd  # only when something is explained: the chat page's first load skips it

    try:
        e = svc.desk.explain_recall(user.external_id, memory_id, query, retrieval_id=retrieval_id, policy=policy)
    except MemLensError as exc:
        st.error(plain(exc))
        return
    box = st.success if e["fell_out_at"] is None else st.warning
    box(plain(e["summary"]), icon=":material/route:")  # ends with "→ reached the prompt" / "→ fell out at …"
    for line in svc.memory_links(memory_id):  # both layers in words: a flag on one explains a drop on the other
        st.caption(":material/link: " + plain(line))
    if e.get("logged"):
        st.caption(plain(f"logged then: {e['logged']['said']} (the stages below are the same search run now)"))
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


def picker(svc: MemoryService, user: User, hits: list[dict[str, Any]], retrieval_id: int, key: str) -> None:
    """A turn's recalled memories in a picker; nothing runs until one is picked (a chat shows many turns)."""
    by_id = {h["memory_id"]: h for h in hits if h.get("memory_id")}
    if not by_id:
        return
    label = {i: short(h.get("content") or i, 90) for i, h in by_id.items()}
    pick = st.selectbox(
        "Why (not)?",
        list(by_id),
        index=None,
        key=key,
        format_func=lambda i: label.get(i, str(i)),
        placeholder="Why (not)? pick a memory",
    )
    if pick:
        show(svc, user, pick, None, key=f"{key}_stages", retrieval_id=retrieval_id)
