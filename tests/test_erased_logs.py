"""The server's log outlives an erasure, so a traceback in it must not keep a user's internal key or ids: a real
500 on the REST door (a table gone from under a write) is logged by its type, route and code line, never with the
error's text or the values bound to the failing statement (the user's key, their words). SQLite and PostgreSQL."""

from __future__ import annotations

import re

import httpx
from actors import ADMIN
from doors_helpers import free_port, serve_in_thread
from sqlalchemy import text

from agent.serve.api import create_app
from memory import apikeys


def test_a_500s_traceback_keeps_no_key_or_id_of_the_user(backend_plumbing_svc, capfd, caplog):
    svc = backend_plumbing_svc
    key = apikeys.create(svc.storage, "crm", actor=ADMIN)[0]
    for base in serve_in_thread(create_app(svc), free_port()):
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=60) as c:
            added = c.post("/v1/memories", json={"messages": "I live in Lisbon", "user_id": "ana", "infer": False})
            memory_id = added.json()["results"][0]["id"]
            user_key = svc.get_user("ana").key
            with svc.storage.engine.begin() as conn:  # the messages' table is gone: the next write fails
                conn.execute(text("ALTER TABLE message RENAME TO message_away"))
            try:
                status = c.post("/v1/memories", json={"messages": "I moved to Porto", "user_id": "ana"})
                assert status.status_code == 500
            finally:
                with svc.storage.engine.begin() as conn:
                    conn.execute(text("ALTER TABLE message_away RENAME TO message"))
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=60) as c:
            assert c.delete("/v1/users/ana").status_code == 200
    log = capfd.readouterr().err + caplog.text
    assert re.search(r"internal error \(\w+Error\) on POST /v1/memories", log)  # the server did log the failure
    assert user_key not in log and memory_id not in log and "Porto" not in log
