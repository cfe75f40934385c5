"""Demo tour: a presenter walks a stakeholder through MemLens's story, step by step, in English or Chinese.

Each step is a real action on the demo user's real data (`memlens seed-demo` made their past sessions): a new session
that remembers what was said days ago, what was recalled and why, a person's correction, the agent following it, a
memory forgotten on the user's request, and what a stricter or looser relevance threshold gains and loses. The
script (questions, the correction, what to forget) is :data:`agent.tour.TOURS`; what a step did is kept in the
browser session, so the page can be reread and a step redone.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from agent.tour import TOURS, Tour, fmt_relevance, forget_topic, hits_of, profile_used, threshold_story
from memory.errors import MemLensError
from memory.storage.models import User
from memory.text.display import ago_text, label, plural
from memory.vocab import Role
from pages.common import SESSION_KEY, USER_KEY, agent, can, current_actor, plain, service, text_block

svc = service()
STATE = "tour_done"  # step name → what the step did (plain values)

picked = st.segmented_control(
    "Language / 语言",
    ["en", "zh"],
    format_func=lambda code: "English" if code == "en" else "中文",
    default="en",
    key="tour_lang",
)
lang: str = picked or "en"
tour: Tour = TOURS[lang]
w = tour.words
done: dict[str, Any] = st.session_state.setdefault(STATE, {}).setdefault(lang, {})

st.title(w["title"], anchor=False)
st.caption(w["intro"])

user: User | None
try:
    user = svc.get_user(tour.user_id)
except MemLensError:
    user = None
if user is None or not svc.list_sessions(user):
    st.info(w["not_seeded"], icon=":material/inbox:")
    st.stop()
st.session_state[USER_KEY] = user.key  # the other pages show the same user while the presenter walks the tour
may_act = can(Role.CURATOR)
if not may_act:
    st.caption(w["read_only"])


def _step(n: int, name: str) -> bool:
    """A step's heading and text; True when it has been done (its result is shown under it)."""
    st.subheader(f"{n}. {w[name + '_title']}", anchor=False)
    st.markdown(w[name + "_text"])
    return name in done


def _chat(text: str) -> dict[str, Any]:
    session = done.setdefault("session", tour.session_id())
    svc.wait_writes(tour.user_id)  # the profile the turn reads: after the user's earlier writes, as the turn waits
    profile = svc.get_profile(tour.user_id)
    result = agent().chat(tour.user_id, session, text, actor=current_actor())  # the agent checks the role
    st.session_state[SESSION_KEY] = session  # the sidebar and the Chat page open the tour's session
    return {
        "question": text,
        "reply": result.reply,
        "bridge": result.bridge,
        "turn_id": result.turn_id,
        "hits": hits_of(result.recall),
        "threshold": result.recall.params.threshold if result.recall else None,
        "from_profile": profile_used(profile, result.reply, lang),
    }


def _verdict(hit: dict[str, Any]) -> str:
    """Why recall (or the prompt) kept or left out a memory, in the tour's words."""
    if hit["injected"]:
        return w["used"]
    why = str(hit["why"] or "")
    if why == "below threshold":
        return w["below"]
    reasons: dict[str, str] = w["why_left"]
    return next((words for key, words in reasons.items() if why.startswith(key)), w["passed"])


def _run(name: str, action) -> None:
    try:
        done[name] = action()
    except MemLensError as exc:
        st.session_state["tour_error"] = str(exc)


def _action(name: str, action) -> None:
    """The step's one button: runs ``action`` on click and keeps its result under the step's name."""
    st.button(w[name + "_button"], key=f"tour_{name}", type="primary", on_click=_run, args=(name, action))


def _reply(turn: dict[str, Any]) -> None:
    st.markdown(f"**{w['user_says']}** {plain(turn['question'])}")
    st.markdown(f"**{w['agent_says']}**")
    text_block(turn["reply"])


# 1 — remember across sessions
if _step(1, "remember"):
    turn = done["remember"]
    if turn.get("bridge"):
        st.markdown(f"**{w['carried']}**")
        text_block(turn["bridge"])
    _reply(turn)
    st.success(w["remember_after"], icon=":material/check:")
elif may_act:
    _action("remember", lambda: _chat(tour.ask_first))

# 2 — what was recalled and why: what the prompt carried, and the relevance recall computed for each memory
if "remember" in done:
    _step(2, "why")
    turn = done["remember"]
    hits = turn["hits"]
    threshold = fmt_relevance(turn["threshold"])
    from_profile = turn.get("from_profile") or []
    if from_profile:
        st.markdown(w["from_profile"].format(lines=plain(" · ".join(from_profile))))
    used = sum(1 for h in hits if h["injected"])
    if used:
        count = plural(used, "memory") if lang == "en" else f"{used} 条记忆"
        st.markdown(w["recalled_used"].format(count=count, threshold=threshold))
    elif threshold is not None:
        st.markdown(w["recalled_none" if from_profile else "recalled_none_no_profile"].format(threshold=threshold))
    if not hits:
        st.caption(w["no_hits"])
    for h in hits[:6]:
        shown = fmt_relevance(h["relevance"])
        score = f"**{shown}**" if shown is not None else w["no_relevance"]
        st.markdown(
            f"- {plain(h['content'])}  \n"
            f"  {w['relevance']} {score} · {_verdict(h)} · {w['said']} {ago_text(h['created_at'], lang)}"
        )
    if threshold is not None:
        st.caption(w["why_after"].format(threshold=threshold))

# 3 — correct a memory
if "remember" in done:
    if _step(3, "correct"):
        fix = done["correct"]
        st.success(
            w["correct_after"].format(field=label(fix["field"], lang), old=plain(fix["old"]), new=plain(fix["new"])),
            icon=":material/edit:",
        )
    elif may_act:

        def _correct() -> dict[str, Any]:
            old = svc.get_profile(tour.user_id).get(tour.correct_field)
            svc.update_profile(
                tour.user_id, tour.correct_field, tour.correct_value, actor=current_actor(), reason=w["correct_reason"]
            )
            return {"field": tour.correct_field, "old": old if old else "—", "new": tour.correct_value}

        _action("correct", _correct)

# 4 — the agent follows
if "correct" in done:
    if _step(4, "follow"):
        _reply(done["follow"])
        followed = tour.correct_value in done["follow"]["reply"]
        (st.success if followed else st.warning)(w["follow_after" if followed else "follow_missed"])
    elif may_act:
        _action("follow", lambda: _chat(tour.ask_where))

# 5 — forget on request
if "follow" in done:
    if _step(5, "forget"):
        gone = done["forget"]
        st.markdown(f"**{w['user_says']}** {plain(tour.forget_request)}")
        st.info(
            w["forget_count"].format(
                count=plural(gone["forgotten"], "memory") if lang == "en" else f"{gone['forgotten']} 条记忆"
            ),
            icon=":material/delete:",
        )
        _reply(gone["after"])
        kept = tour.forget_word.lower() in gone["after"]["reply"].lower()
        (st.warning if kept else st.success)(w["forget_missed" if kept else "forget_after"])
    elif may_act:

        def _forget() -> dict[str, Any]:
            n = forget_topic(svc, tour.user_id, tour.forget_word, actor=current_actor(), reason=w["forget_reason"])
            return {"forgotten": n, "after": _chat(tour.ask_forgotten)}

        _action("forget", _forget)

# 6 — what the threshold gains and loses
if "forget" in done:
    if _step(6, "threshold"):
        story = done["threshold"]
        now = story.get("now", [])
        st.markdown(f"**{w['now_at' if now else 'now_none'].format(threshold=fmt_relevance(story['threshold']))}**")
        for content in now[:6]:
            st.markdown(f"- {plain(content)}")
        for key in ("looser", "stricter"):
            part = story[key]
            heading = w[key].format(threshold=fmt_relevance(part["threshold"]))
            st.markdown(f"**{heading}**")
            changes = [(w["gains"], m) for m in part["gained"]] + [(w["loses"], m) for m in part["lost"]]
            if not changes:
                st.caption(w["same"])
            for verb, content in changes[:4]:
                st.markdown(f"- {verb}: {plain(content)}")
        st.caption(w["threshold_after"])
    elif may_act:
        _action("threshold", lambda: threshold_story(svc, tour.user_id, tour.ask_first, done.get("session")))

if "threshold" in done:
    st.subheader(w["end_title"], anchor=False)
    st.markdown(w["end_text"])
    if st.button(w["restart"], key="tour_restart"):
        st.session_state[STATE].pop(lang, None)
        st.rerun()

if err := st.session_state.pop("tour_error", None):
    st.error(plain(err), icon=":material/error:")
