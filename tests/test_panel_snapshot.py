"""The chat panel renders the turn's composition snapshot (issue #28, item 2): exactly the sections, lines and source
context the prompt received — never a recomputation.

Before: the panel listed every injected hit's full source context (``h.context``) and the raw bridge under "as the
prompt received it", including context lines the composer cut for budget and bridge clauses it left out. Now it
reads ``views.turn_details(...)["composed"]`` / ``views.turn_composed`` (the saved prompt, split at its headers).
"""

from __future__ import annotations

from agent.runtime import Agent
from memory import views
from memory.config import Settings
from memory.prompts import HEADERS
from memory.service import MemoryService
from memory.views.composed import composed
from memory.vocab import SEMANTIC_TYPES
from tests.actors import CURATOR


def test_the_composed_sections_are_the_prompts_own_lines(svc: MemoryService):
    bot = Agent(svc)
    bot.chat("ps-user", "s1", "I have a dog named Biscuit. I like jazz. I live in Lisbon.")
    bot.wait()
    result = bot.chat("ps-user", "s1", "What do you know about my dog and jazz?")
    got = views.turn_composed(svc.storage, result.turn_id)
    assert got is not None
    data = _prompt(svc, result.turn_id).split("[system] <memory-data>", 1)[1].rsplit("</memory-data>", 1)[0]
    assert [n for n, _ in got.sections] == [n for n in HEADERS if HEADERS[n] in data]
    for name, lines in got.sections:  # every line shown is a line of the prompt's data message, in order
        assert HEADERS[name] in data
        for line in lines:
            assert line in data
    assert got.input == "What do you know about my dog and jazz?"
    bot.close()


def test_context_cut_for_budget_is_not_shown(settings: Settings, e5):
    """A small memories section: the composer cuts source-context lines; the panel shows only what it kept."""
    small = settings.model_copy(update={"context_memories_cap": 60})
    svc = MemoryService(small, embedder=e5)
    bot = Agent(svc)
    long_line = "We talked for a long while about trains, stations, timetables and tickets across the country. " * 3
    bot.chat("ps-cut", "s1", long_line)
    bot.chat("ps-cut", "s1", "I have a dog named Biscuit.")
    bot.chat("ps-cut", "s1", long_line)
    bot.wait()
    result = bot.chat("ps-cut", "s2", "What's my dog's name?")
    details = views.turn_details(svc.storage, result.session_key)
    shown = next(d for d in details.values() if d["turn_id"] == result.turn_id)
    recomputed = [row["text"] for h in shown["hits"] if h["injected"] for row in h["context"]]
    panel = "\n".join(shown["composed"].lines("memories"))  # (the bridge may say back what was said last time)
    assert "Biscuit" in panel
    assert recomputed and any("timetables" in t for t in recomputed)  # the hit's context has the long lines …
    assert "timetables" not in panel  # … the prompt did not, and neither does the panel
    assert shown["composed"] == composed(_prompt(svc, result.turn_id))
    bot.close()
    svc.close()


def test_a_retracted_bridge_clause_is_not_in_the_panel(svc: MemoryService):
    bot = Agent(svc)
    bot.chat("ps-br", "s1", "I have a dog named Biscuit.")
    bot.chat("ps-br", "s1", "I like jazz.")
    bot.wait()
    facts = svc.list_memories(svc.get_user("ps-br"), types=SEMANTIC_TYPES)
    dog = next(m for m in facts if "Biscuit" in m.content)
    svc.flag_memory(dog.id, actor=CURATOR)
    result = bot.chat("ps-br", "s2", "hello")
    got = views.turn_composed(svc.storage, result.turn_id)
    assert "jazz" in " ".join(got.lines("bridge")) and "Biscuit" not in " ".join(got.lines("bridge"))
    bot.close()


def _prompt(svc: MemoryService, turn_id: int) -> str:
    from sqlmodel import select

    from memory.storage.models import ContextSnapshot

    with svc.storage.db() as db:
        return db.exec(select(ContextSnapshot).where(ContextSnapshot.turn_id == turn_id)).one().prompt
