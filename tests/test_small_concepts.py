"""The small concepts, once each: a second implementation written anywhere fails here.

- "is this Chinese?" — ``memory/text/language.py`` (``has_cjk``: any ideograph; ``is_chinese``: mostly ideographs);
- sentence splitting — ``memory/text/sentences.py``;
- a memory rendered as a line — ``memory/text/lines.py`` (the prompt's line and the offline engine's spoken line);
- user lookup by key — ``memory.storage.records.user_by_key``;
- personal data masked before storage — ``memory/storage/scrub.py``, at the engine (docs/architecture.md).

Each check scans the source with ``ast`` and is shown to catch a planted copy.
"""

from __future__ import annotations

import ast
import functools
import re

import pytest
from sqlalchemy import insert, select

from bench.import_graph import ROOT
from memory.storage.models import Retrieval
from memory.text.language import has_cjk, is_chinese, language
from memory.text.sentences import clause, sentences

PACKAGES = ("memory", "agent", "pages")


@functools.cache
def _sources() -> dict[str, ast.AST]:
    """Every module's tree, parsed once per test process."""
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            out[str(path.relative_to(ROOT))] = ast.parse(path.read_text(encoding="utf-8"))
    for path in (ROOT / "app.py", ROOT / "backoffice.py"):
        if path.exists():
            out[path.name] = ast.parse(path.read_text(encoding="utf-8"))
    return out


# -- "is this Chinese?" ------------------------------------------------------------------------------------------
#: a character class holding nothing but the CJK ideograph range (``[\u4e00-\u9fff]``, ``[\u3400-\u9fff]+``),
#: written with escapes (raw strings) or the characters themselves
_LONE_CJK_CLASS = re.compile(r"\[(?:\\u3400|\\u4e00|\u3400|\u4e00)-(?:\\u9fa5|\\u9fff|\u9fa5|\u9fff)\][+*]?")
_CJK_BOUNDS = {"\u3400", "\u4e00", "\u9fa5", "\u9fff"}


def cjk_tests(tree: ast.AST) -> list[int]:
    """Lines where a text is tested for Chinese characters by hand: a pattern that is only the CJK class, or a
    comparison against the range's bounds (``"\u3400" <= ch <= "\u9fff"``). Rule tables that match Chinese words
    inside longer patterns are not tests of the language and are left alone."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and _LONE_CJK_CLASS.fullmatch(node.value):
            found.append(node.lineno)
        elif isinstance(node, ast.Compare):
            parts = [node.left, *node.comparators]
            if any(isinstance(p, ast.Constant) and p.value in _CJK_BOUNDS for p in parts):
                found.append(node.lineno)
    return found


def test_is_this_chinese_is_answered_in_one_place():
    seen = {path: lines for path, tree in _sources().items() if (lines := cjk_tests(tree))}
    assert set(seen) == {"memory/text/language.py"}, seen


def test_the_cjk_check_catches_a_copy():
    assert cjk_tests(ast.parse('import re\nZH = re.compile(r"[\\u4e00-\\u9fff]")\n')) == [2]
    assert cjk_tests(ast.parse('ok = "\\u3400" <= ch <= "\\u9fff"\n')) == [1]
    assert cjk_tests(ast.parse('RULE = r"我住在(?P<obj>[\\u4e00-\\u9fff]{2,3})"\n')) == []  # a rule, not a test


@pytest.mark.parametrize(
    ("text", "any_cjk", "mostly"),
    [
        ("我住在杭州", True, True),
        ("I moved to 北京 last year", True, False),  # an English sentence naming a Chinese place
        ("I live in Lisbon", False, False),
        ("", False, False),
        ("我在 Google 工作", True, True),
    ],
)
def test_the_two_questions(text, any_cjk, mostly):
    assert has_cjk(text) is any_cjk and is_chinese(text) is mostly
    assert language(text) == ("zh" if mostly else "en")


# -- sentence splitting ------------------------------------------------------------------------------------------
def _splitters(tree: ast.AST) -> list[str]:
    """Functions named like a sentence splitter, and ``re.split`` calls on sentence end marks."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and re.fullmatch(r"_?(?:split_)?sentences|_?split_sentences", node.name):
            out.append(node.name)
        elif isinstance(node, ast.Call) and ast.unparse(node.func) == "re.split" and node.args:
            pattern = node.args[0]
            if isinstance(pattern, ast.Constant) and isinstance(pattern.value, str) and "。" in pattern.value:
                out.append(f"re.split@{node.lineno}")
    return out


def test_sentences_are_split_in_one_place():
    seen = {path: found for path, tree in _sources().items() if (found := _splitters(tree))}
    allowed = {"memory/text/sentences.py": ["sentences"], "memory/desk/hygiene.py": ["_sentences"]}  # a filter
    assert seen == allowed


def test_the_splitter_check_catches_a_copy():
    assert _splitters(ast.parse('import re\nparts = re.split(r"[。！？]", text)\n')) == ["re.split@2"]
    assert _splitters(ast.parse("def split_sentences(t):\n    return t\n")) == ["split_sentences"]


def test_one_splitter_for_both_languages():
    assert sentences("I live in Lisbon. It costs 2.5k a month!\n我住在杭州。你呢？") == [
        "I live in Lisbon.",
        "It costs 2.5k a month!",
        "我住在杭州。",
        "你呢？",
    ]
    assert clause("我住在杭州。") == "我住在杭州" and clause("Really?!") == "Really"
    assert sentences("Be brief; be kind. Done") == ["Be brief;", "be kind.", "Done"]
    # a point inside a word or after a title ends no sentence
    assert sentences("Booked via Booking.com for St. Joseph's feast. Dr. Lee came. J.K. Rowling too. See you.") == [
        "Booked via Booking.com for St. Joseph's feast.",
        "Dr. Lee came.",
        "J.K. Rowling too.",
        "See you.",
    ]
    assert sentences("I saw J. K. Rowling. Plan B. Fine.") == ["I saw J. K. Rowling.", "Plan B.", "Fine."]
    assert sentences("We live near D.C. I love it.") == ["We live near D.C.", "I love it."]
    # a closing quote stays with the quote it closes; an opening one after a space starts the next sentence
    said = 'I like this line: "Happiness hides in the dark." That\'s how I keep going. "Go," she said.'
    assert sentences(said) == [
        'I like this line: "Happiness hides in the dark."',
        "That's how I keep going.",
        '"Go," she said.',
    ]
    assert sentences("Be brief; be kind. Done", semicolons=False) == ["Be brief; be kind.", "Done"]


# -- a memory rendered as a line ---------------------------------------------------------------------------------
def _line_renderers(tree: ast.AST) -> list[str]:
    return [
        n.name
        for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef) and re.search(r"memory_line|_line$", n.name) and "memory" in n.name
    ]


def test_a_memory_line_is_rendered_in_one_place():
    seen = {path: found for path, tree in _sources().items() if (found := _line_renderers(tree))}
    assert seen == {}, seen  # memory/text/lines.py names them prompt_line / spoken_line
    names = {n.name for n in ast.walk(_sources()["memory/text/lines.py"]) if isinstance(n, ast.FunctionDef)}
    assert {"prompt_line", "spoken_line"} <= names
    assert _line_renderers(ast.parse("def _memory_line(m):\n    return m.content\n")) == ["_memory_line"]


def test_both_lines_say_a_persons_correction_is_not_the_users_words():
    from datetime import UTC, datetime

    from memory.text.lines import PERSON_EDIT_LABEL, prompt_line, spoken_line
    from memory.vocab import MemoryType, SourceType

    class M:
        content = "User lives in Porto"
        created_at = datetime(2026, 11, 24, tzinfo=UTC)
        source_type = SourceType.PERSON_EDIT
        type = MemoryType.FACT

    assert PERSON_EDIT_LABEL in prompt_line(M())
    said = spoken_line(M(), "en", datetime(2026, 12, 1, tzinfo=UTC))
    assert "Porto" in said and "told me" not in said


# -- user lookup by key ------------------------------------------------------------------------------------------
def _user_lookups(tree: ast.AST) -> list[int]:
    """``db.get(User, …)`` / ``session.get(User, …)``: reading a user row by its key."""
    return [
        n.lineno
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "get"
        and n.args
        and isinstance(n.args[0], ast.Name)
        and n.args[0].id == "User"
    ]


def test_a_user_is_looked_up_by_key_in_one_place():
    seen = {path: lines for path, tree in _sources().items() if (lines := _user_lookups(tree))}
    assert list(seen) == ["memory/storage/records.py"] and len(seen["memory/storage/records.py"]) == 1, seen
    assert _user_lookups(ast.parse("with s.db() as db:\n    u = db.get(User, key)\n")) == [2]


# -- personal data: one choke point ------------------------------------------------------------------------------
def test_the_engine_masks_a_raw_write_by_itself(plumbing_svc):
    """The choke point, alone: a Core insert that masks nothing itself still stores nothing unmasked."""
    svc = plumbing_svc
    user = svc.ensure_user("lin")
    with svc.storage.engine.begin() as conn:
        conn.execute(
            insert(Retrieval).values(
                user_key=user.key,
                agent_id="*",
                query="call 13812345678",
                retrieval_query="lin.wei@example.com",
                params={},
            )
        )
    with svc.storage.engine.connect() as conn:
        query, rq = conn.execute(select(Retrieval.query, Retrieval.retrieval_query)).one()
    assert "13812345678" not in query and "[phone ***5678]" in query
    assert rq == "[email]"
