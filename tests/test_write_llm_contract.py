"""The LLM extractor keeps the extraction contract (issue 44, item 5) — resolve or abstain, worth keeping, one fact
once — through the one write path: the chat turn (``Agent.chat``) with a model configured (``MEMLENS_LLM_BASE_URL``),
the real ChatOpenAI against a local OpenAI-protocol stub server that answers each extraction request with a recorded
response. The model is the only fake; what is asserted is what the store holds afterwards.

Recorded responses (what a model does return): a fact whose object is an unresolved "it" (the model copied the
pronoun), a fact that names what "it" was (resolved from the message it answers), a trivial verdict of the moment,
the same fact twice in one answer, the same fact again from a later message, and a fact that differs from a stored
one only in a number (two facts, never merged); a pep talk, a mood of the day, words to the listener, and the same
like said in other words ("likes to help people" after "likes helping people": one memory, two sources)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from agent.runtime import Agent
from memory import views
from memory.prompts import DATA_CLOSE, DATA_OPEN
from memory.service import MemoryService
from memory.vocab import SEMANTIC_TYPES, MemoryType


def _fact(content: str, obj: str, predicate: str = "fact") -> dict:
    return {"predicate": predicate, "object": obj, "content": content, "hedged": False, "negated": False}


#: the user's message → what the model extracted from it (recorded answers)
RECORDED: dict[str, list[dict]] = {
    "I live in Lisbon.": [_fact("User lives in Lisbon.", "Lisbon", "lives_in")],
    "I want to try it and see if it helps me sleep.": [
        _fact("User wants to try it and see if it helps them sleep.", "it")
    ],
    "我想试试它，看能不能帮助睡眠。": [_fact("用户想试试它，看能不能帮助睡眠。", "它")],
    "We are a great team!": [_fact("User and others are a great team.", "great team")],
    "I started pottery classes last month.": [
        _fact("User started pottery classes last month.", "pottery classes"),
        _fact("User started pottery classes last month.", "pottery classes"),  # the same fact twice in one answer
    ],
    "Pottery classes started last month for me, I go every week.": [
        _fact("User started pottery classes last month.", "pottery classes")
    ],
    "I run 5 km every morning.": [_fact("User runs 5 km every morning.", "running")],
    "These days I run 10 km every morning.": [_fact("User runs 10 km every morning.", "running")],
    # the third round's rules (pep talk, mood of the day, words to the listener) and a near-identical repeat
    "I like helping people.": [_fact("User likes helping people.", "helping people", "likes")],
    "I like to help people.": [_fact("User likes to help people.", "to help people", "likes")],
    "Look what I made!": [_fact("Look what User made.", "what User made")],
    "I'm gonna keep chasing my dreams!": [_fact("User is gonna keep chasing their dreams.", "dreams")],
    "我今天心情很好。": [_fact("用户今天心情很好。", "心情很好")],
    # the learned worth-keeping decision (memory.write.keep): a mood no rule lists, a concrete dated fact
    "I couldn't stop smiling.": [_fact("User couldn't stop smiling.", "smiling")],
    "Biscuit is my new greyhound, adopted him last Monday.": [
        _fact("User adopted a greyhound named Biscuit last Monday.", "greyhound Biscuit", "event")
    ],
}
#: the agent's reply to each message (what the next message answers)
REPLIES = {"I live in Lisbon.": "Nice! Have you tried yoga for your sleep?"}
RESOLVED = {  # the same words, answered by a model that named the "it" from the question it answers
    "I want to try it and see if it helps me sleep.": [_fact("User wants to try yoga to help them sleep.", "yoga")]
}


class _Handler(BaseHTTPRequestHandler):
    requests: list[dict] = []
    recorded: dict[str, list[dict]] = RECORDED

    def log_message(self, *args) -> None:  # keep pytest output clean
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.requests.append(body)
        prompt = body["messages"][-1]["content"]
        if "response_format" in body or "tools" in body:  # the write path's structured extraction
            said = prompt.rsplit(DATA_OPEN, 1)[1].split(DATA_CLOSE, 1)[0].strip()  # the message: the last block
            text = json.dumps({"facts": self.recorded.get(said, [])})
        else:
            text = REPLIES.get(prompt, "I see.")
        self._json(body, text)

    def _json(self, body: dict, text: str) -> None:
        choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        if body.get("stream"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for delta, finish in (({"role": "assistant", "content": text}, None), ({}, "stop")):
                chunk = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": body["model"]}
                chunk["choices"] = [{"index": 0, "delta": delta, "finish_reason": finish}]
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
            return
        payload = json.dumps(
            {"id": "c", "object": "chat.completion", "created": 0, "model": body["model"], "choices": [choice]}
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture
def stub():
    _Handler.requests = []
    _Handler.recorded = dict(RECORDED)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", _Handler
    server.shutdown()
    server.server_close()


def _turns(svc: MemoryService, base_url: str, texts: list[str]) -> list[str]:
    """Each text as the user's chat turn (one session), with the model configured; the facts stored, oldest first."""
    svc.storage.settings = svc.settings.model_copy(update={"llm_base_url": base_url, "llm_model": "stub-model"})
    agent = Agent(svc)
    try:
        for text in texts:
            agent.chat("u", "s1", text)
            svc.wait_writes("u")
    finally:
        agent.close()
    mems = svc.list_memories(svc.get_user("u"), types=SEMANTIC_TYPES)
    return [m.content for m in sorted(mems, key=lambda m: m.created_at)]


def test_the_llm_extractor_abstains_on_an_unresolved_reference_and_drops_a_verdict(plumbing_svc, stub):
    base_url, handler = stub
    svc = plumbing_svc
    texts = ["I live in Lisbon.", "I want to try it and see if it helps me sleep.", "我想试试它，看能不能帮助睡眠。"]
    stored = _turns(svc, base_url, [*texts, "We are a great team!"])
    assert any("response_format" in r or "tools" in r for r in handler.requests)  # the model was asked
    assert stored == ["User lives in Lisbon."]  # no "try it" / "试试它", no "great team": the episodes keep them
    episodes = [m.content for m in svc.list_memories(svc.get_user("u"), types=[MemoryType.EPISODE])]
    assert all(any(t in e for e in episodes) for t in ("try it", "试试它", "great team"))


def test_the_llm_extractor_keeps_a_reference_the_model_named_from_the_message_it_answers(plumbing_svc, stub):
    base_url, handler = stub
    handler.recorded.update(RESOLVED)
    stored = _turns(plumbing_svc, base_url, ["I live in Lisbon.", "I want to try it and see if it helps me sleep."])
    assert stored == ["User lives in Lisbon.", "User wants to try yoga to help them sleep."]
    asked = [r for r in handler.requests if "response_format" in r or "tools" in r]
    prompt = asked[-1]["messages"][-1]["content"]
    assert "Have you tried yoga" in prompt  # the message it answers was given to the model, fenced as data
    assert "cannot be named is left out" in prompt  # and the model is asked to resolve or abstain


def test_the_llm_extractor_stores_one_fact_once_with_every_source(plumbing_svc, stub):
    base_url, _ = stub
    svc = plumbing_svc
    texts = [
        "I started pottery classes last month.",
        "Pottery classes started last month for me, I go every week.",
        "I run 5 km every morning.",
        "These days I run 10 km every morning.",
    ]
    stored = _turns(svc, base_url, texts)
    assert stored == [
        "User started pottery classes last month.",
        "User runs 5 km every morning.",
        "User runs 10 km every morning.",  # differs in a number: its own fact
    ]
    pottery = next(m for m in svc.list_memories(svc.get_user("u"), types=SEMANTIC_TYPES) if "pottery" in m.content)
    said = [m["content"] for m in views.source_words(svc.storage, pottery.id)["messages"]]
    assert said == texts[:2]  # one memory, both messages its sources


def test_the_llm_extractor_drops_a_pep_talk_and_words_to_the_listener_and_reinforces_a_near_repeat(svc, stub):
    """Real e5 embeddings: "User likes to help people." is "User likes helping people." in other words; the one
    rule (memory.write.same) makes it a second source of the first memory, as the hygiene queue would merge it."""
    base_url, _ = stub
    texts = ["I like helping people.", "Look what I made!", "I'm gonna keep chasing my dreams!", "我今天心情很好。"]
    stored = _turns(svc, base_url, [*texts, "I like to help people."])
    assert stored == ["User likes helping people."]
    (memory,) = svc.list_memories(svc.get_user("u"), types=SEMANTIC_TYPES)
    said = [m["content"] for m in views.source_words(svc.storage, memory.id)["messages"]]
    assert said == ["I like helping people.", "I like to help people."]


def test_what_a_model_extracts_is_kept_or_dropped_by_the_learned_worth_keeping_decision(svc, stub):
    """Real e5: the planner reads the model's candidate with its passage vector (memory.write.keep) — a mood of the
    moment no hand-written rule lists is not stored as a fact (the episode keeps it), a concrete dated fact is."""
    from memory.write.extract.references import resolve
    from memory.write.extract.worth import trivial

    base_url, _ = stub
    texts = ["I couldn't stop smiling.", "Biscuit is my new greyhound, adopted him last Monday."]
    said = "User couldn't stop smiling."
    assert trivial(said, "fact") is None and resolve(said, texts[0]) == said  # no hand-written rule drops it
    assert _turns(svc, base_url, texts) == ["User adopted a greyhound named Biscuit last Monday."]
    episodes = [m.content for m in svc.list_memories(svc.get_user("u"), types=[MemoryType.EPISODE])]
    assert any("stop smiling" in e for e in episodes)
