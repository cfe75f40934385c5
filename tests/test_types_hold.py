"""What the type checker found once its baseline was gone, held by behaviour.

Each test here is for a line mypy flagged while error codes were switched off for its module: the fix is kept by
what it does, not only by the checker staying quiet.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from memory.config import Settings
from memory.storage.embed import OpenAIEmbedder


class _Embeddings(BaseHTTPRequestHandler):
    seen: list[dict] = []

    def log_message(self, *args) -> None:  # keep pytest output clean
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.seen.append({"path": self.path, "auth": self.headers.get("Authorization"), **body})
        if self.path != "/v1/embeddings":
            self.send_error(404)
            return
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = [{"object": "embedding", "index": n, "embedding": [3.0, 4.0, 0.0]} for n in range(len(inputs))]
        out = json.dumps({"object": "list", "data": data, "model": body["model"], "usage": {}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


@pytest.fixture
def embeddings_server():
    _Embeddings.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Embeddings)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_openai_embedder_calls_the_configured_endpoint_with_the_configured_key(embeddings_server, tmp_path):
    """``OpenAIEmbeddings`` is given its fields by name (``openai_api_base`` / ``openai_api_key``): the endpoint and
    the key set in the settings are the ones the requests use, and the dimension is probed from the answer."""
    s = Settings(
        data_dir=tmp_path,
        embedder="openai",
        embed_base_url=embeddings_server,
        embed_model="stub-embed",
        llm_api_key="sk-test-123",
    )
    emb = OpenAIEmbedder(s)
    assert (emb.name, emb.dim) == ("openai:stub-embed", 3)
    vec = emb.embed_query("我喜欢喝茶")
    assert np.allclose(vec, [0.6, 0.8, 0.0])  # normalised
    assert emb.embed_passages(["tea", "coffee"]).shape == (2, 3)
    assert {r["path"] for r in _Embeddings.seen} == {"/v1/embeddings"}
    assert {r["auth"] for r in _Embeddings.seen} == {"Bearer sk-test-123"}
    assert {r["model"] for r in _Embeddings.seen} == {"stub-embed"}
    sent = len(_Embeddings.seen)
    assert emb.embed_passages([f"note {i}" for i in range(40)]).shape == (40, 3)
    assert len(_Embeddings.seen) - sent == 2  # unset batch size: 32 texts a request, not e5's 8 a call


def test_a_message_never_stored_is_refused_not_reported_as_already_written(plumbing_svc):
    """Its id is None (mypy: ``int | None`` where an id was needed): before, the claim found no row for it and the
    report said "already written (repeated message)", a false account of a message nobody wrote."""
    from memory.errors import InvalidInput
    from memory.storage.models import Message

    svc = plumbing_svc
    user = svc.ensure_user("ana")
    session = svc.ensure_session(user, "s1")
    stored = svc.add_message(session, "user", "我住在杭州。")
    loose = Message(session_id=session.id, user_key=user.key, role="user", content="I live in Porto.")
    with pytest.raises(InvalidInput, match="not been stored"):
        svc.write_from_messages(user, session, [stored, loose])
    reports = svc.write_from_messages(user, session, [stored])  # nothing was claimed by the refused call
    assert [r.message_id for r in reports] == [stored.id] and reports[0].reason != "already written (repeated message)"
