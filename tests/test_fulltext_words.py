"""The full-text index finds ordinary words: its stop words are English and Chinese function words only
(memory/text/stopwords.py). With LanceDB's default list for the ICU tokenizer, "dog", "son", "city", "door"… were
dropped as some other language's function words, so a memory could not be found by them. A table built before is
rebuilt by the next optimize.

Real LanceDB in the test's folder, the product's own index class; vectors are random (only the text is searched).
"""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest

from memory.storage.vectors import IndexRow, VectorIndex
from memory.text.stopwords import STOP_WORDS

DIM = 8

#: words ICU's default stop list dropped (each was measured missing before this list), and words that stem to a
#: function word's form which must stay: "owned" (own), "won" (the verb), "May" (the month), "mining" (mine)
ORDINARY = [
    "dog", "cats", "son", "city", "door", "hat", "war", "sale", "sea", "care", "wanted", "coming", "ended",
    "face", "minutes", "man", "met", "owned", "won", "May", "mining", "sitting", "under",
]  # fmt: skip
CHINESE = ["狗", "妈妈", "杭州", "网球"]


def row(i: int, text: str, user: str = "u") -> IndexRow:
    return IndexRow(
        id=f"m{i}",
        user_key=user,
        agent_id="default",
        text=text,
        vector=np.random.default_rng(i).normal(size=DIM).astype(np.float32),
        type="fact",
        created_at=datetime(2026, 1, 1),
    )


def found(index: VectorIndex, query: str) -> list[str]:
    return [i for i, _, _ in index.search_text(query, "u", None, 10, vectors=False)]


@pytest.fixture
def index(tmp_path) -> VectorIndex:
    idx = VectorIndex(str(tmp_path / "lancedb"), DIM)
    texts = [f"Note about the {w} from last week" for w in ORDINARY] + [f"我的{w}" for w in CHINESE]
    idx.add([row(i, t) for i, t in enumerate(texts)])
    return idx


def test_ordinary_english_and_chinese_words_are_found(index):
    for i, word in enumerate(ORDINARY):
        assert found(index, word) == [f"m{i}"], word
    for j, word in enumerate(CHINESE, start=len(ORDINARY)):
        assert found(index, word) == [f"m{j}"], word


def test_the_list_holds_function_words_and_none_of_the_ordinary_ones():
    assert {"the", "and", "my", "的", "我"} <= set(STOP_WORDS)
    assert not set(ORDINARY) & set(STOP_WORDS)


def test_a_query_of_function_words_matches_nothing(index):
    assert found(index, "the about from") == []
    assert found(index, "我的") == []
    # a function word beside a telling one changes nothing: the telling word decides
    assert found(index, "the dog") == found(index, "dog") == ["m0"]


def test_a_table_built_with_the_default_list_is_rebuilt_by_optimize(index):
    from lancedb.index import FTS

    index.table.create_index("text", config=FTS(base_tokenizer="icu", language="English", stem=True), replace=True)
    assert found(index, "dog") == []  # the defect: an ordinary word dropped as a stop word
    assert found(index, "Note") != []
    index.optimize()
    text_index = next(cfg for cfg in index.table.list_indices() if cfg.columns == ["text"])
    assert VectorIndex._text_index_current(text_index)
    assert found(index, "dog") == ["m0"]
    index.optimize()  # current already: left as it is
    assert (
        next(cfg for cfg in index.table.list_indices() if cfg.columns == ["text"]).index_uuid == text_index.index_uuid
    )


def test_an_older_index_is_rebuilt_when_a_process_first_opens_it(tmp_path, hash_embedder):
    """An upgrade: the data folder's index was built with ICU's default list; the next process to open it rebuilds
    the full-text index once (the start-up check), and the one after leaves it alone."""
    from lancedb.index import FTS

    from memory.config import Settings
    from memory.service import MemoryService

    settings = Settings(data_dir=tmp_path / "data")
    svc = MemoryService(settings, embedder=hash_embedder)
    user = svc.ensure_user("ann")
    svc.add_memory(user, "I adopted a dog named Pepper", type="fact")
    tbl = svc.storage.index.table
    tbl.create_index("text", config=FTS(base_tokenizer="icu", language="English", stem=True), replace=True)
    assert svc.storage.index.search_text("dog", user.key, None, 5) == []
    svc.close()

    svc = MemoryService(settings, embedder=hash_embedder)
    assert [i for i, _, _ in svc.storage.index.search_text("dog", user.key, None, 5)] != []
    assert not svc.storage.index.refresh_text_index()  # current now: nothing to do
    svc.close()
