"""Provenance quotes only what was said (issue #28, item 3).

Before: "我养了一只猫，叫咪咪。" gave its second clause the user as subject ("我叫咪咪"), renamed 王芳 to 咪咪 and
logged ``user states: '我叫咪咪'`` — a sentence she never said; "I have a cat called Mimi." lost the cat's name; a
person's edit was stored as ``actor`` and read as ``by``, so no person showed.
"""

from __future__ import annotations

import re

import pytest
from actors import CURATOR

from agent.runtime import Agent
from memory import views
from memory.service import MemoryService


def _quotes(reason: str) -> list[str]:
    return re.findall(r"'([^']*)'", reason)


def _said(svc: MemoryService, user_id: str) -> str:
    user = svc.get_user(user_id)
    return "\n".join(m.content for s in svc.list_sessions(user) for m in svc.messages(s.id))


def test_a_pets_name_is_not_the_users_and_the_log_quotes_only_what_was_said(svc: MemoryService):
    bot = Agent(svc)
    bot.chat("pv-zh", "s1", "我叫王芳。")
    bot.chat("pv-zh", "s1", "我养了一只猫，叫咪咪。")
    bot.wait()
    assert svc.get_profile("pv-zh").get("display_name") == "王芳"
    contents = [m.content for m in svc.list_memories(svc.get_user("pv-zh"))]
    assert any("咪咪" in c and "猫" in c for c in contents)  # the cat keeps its name
    assert not any(c == "用户叫咪咪。" for c in contents)
    said = _said(svc, "pv-zh")
    for change in views.profile_changes(svc.storage, svc.get_user("pv-zh").key):
        for quote in _quotes(change["reason"]):
            assert quote in said, change  # verbatim, never "我叫咪咪"
    reply = bot.chat("pv-zh", "s1", "我叫什么名字？").reply
    assert "王芳" in reply and "你叫咪咪" not in reply
    bot.close()


@pytest.mark.parametrize(
    ("sentence", "kept"),
    [
        ("I have a cat called Mimi.", "Mimi"),
        ("I have a dog named Biscuit.", "Biscuit"),
        ("我养了一只狗，名叫旺财。", "旺财"),
    ],
)
def test_a_pet_keeps_its_name_and_never_names_the_user(svc: MemoryService, sentence: str, kept: str):
    svc.remember("pv-pet", "My name is Ann." if sentence.isascii() else "我叫安。")
    svc.remember("pv-pet", sentence)
    assert svc.get_profile("pv-pet").get("display_name") in ("Ann", "安")
    assert any(kept in m.content for m in svc.list_memories(svc.get_user("pv-pet")))


@pytest.mark.parametrize(
    "sentence",
    ["My friend Tom lives in Berlin.", "我朋友小李住在上海。", "My sister Anna is a nurse.", "我妹妹是护士。"],
)
def test_other_people_never_fill_the_users_profile(svc: MemoryService, sentence: str):
    svc.remember("pv-other", sentence)
    assert svc.get_profile("pv-other") == {}


def test_a_persons_edit_shows_the_person(svc: MemoryService):
    svc.remember("pv-edit", "I live in Porto.")
    svc.update_profile("pv-edit", "city", "Lisbon", actor=CURATOR, reason="she moved")
    changes = views.profile_changes(svc.storage, svc.get_user("pv-edit").key)
    assert changes[0]["new"] == "Lisbon" and changes[0]["by"] == "test-curator · test"
    memory = next(m for m in svc.list_memories(svc.get_user("pv-edit")) if "Lisbon" in m.content)
    svc.flag_memory(memory.id, actor=CURATOR, reason="checking")
    rows, _ = views.write_log(svc.storage, svc.get_user("pv-edit").key, views.WriteFilter(), limit=20, offset=0)
    assert {r["by"] for r in rows if r["op"] in ("EDIT", "FLAG", "SUPERSEDE", "ADD") and r["source"] == "person-edit"}
    assert any(r["op"] == "FLAG" and r["by"] == "test-curator" for r in rows)
