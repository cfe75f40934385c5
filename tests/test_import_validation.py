"""Imports are validated like live input: the file's user is the only user, every user key is replaced, hashes are
recomputed, ids validated, text masked again, and a bad file gets a clear error naming the first bad row."""

from __future__ import annotations

import copy

import pytest
from actors import ADMIN
from sqlmodel import select

from memory.errors import InvalidInput
from memory.storage.models import Memory, ProfileField, User, id_hash


def _export(svc, user_id="alice"):
    user = svc.ensure_user(user_id)
    svc.add_memory(user, "User likes green tea")
    data = svc.lifecycle.export_user(user_id, actor=ADMIN)
    svc.lifecycle.delete_user(user_id, actor=ADMIN)
    return data


def test_rows_claiming_another_user_land_in_the_files_user(plumbing_svc):
    svc = plumbing_svc
    victim = svc.ensure_user("victim")
    svc.add_memory(victim, "Victim likes coffee")
    data = _export(svc)
    forged = copy.deepcopy(data["tables"]["memory"][0])
    forged.update(id="f" * 32, user_key=victim.key, content="Victim's card is 4242 4242 4242 4242")
    data["tables"]["memory"].append(forged)
    svc.lifecycle.import_user(data, actor=ADMIN)
    alice = svc.get_user("alice")
    with svc.storage.db() as db:
        victim_rows = db.exec(select(Memory).where(Memory.user_key == victim.key)).all()
        imported = db.exec(select(Memory).where(Memory.content.contains("card"))).one()
    assert [m.content for m in victim_rows] == ["Victim likes coffee"]
    assert imported.user_key == alice.key != data["user"]["key"] and imported.id != "f" * 32  # ids remapped
    assert "4242 4242" not in imported.content and "[bank-card ***4242]" in imported.content
    assert not any("4242 4242" in h.content for h in svc.recall("alice", "card", log=False).hits)


def test_hashes_are_recomputed_so_no_user_is_squatted(plumbing_svc):
    svc = plumbing_svc
    data = _export(svc)
    data["user"]["external_hash"] = id_hash("future-user")
    svc.lifecycle.import_user(data, actor=ADMIN)
    with svc.storage.db() as db:
        alice = db.exec(select(User).where(User.external_id == "alice")).one()
    assert alice.external_hash == id_hash("alice")
    svc.remember("future-user", "I live in Porto.")  # the squatted id works
    svc.lifecycle.delete_user("alice", actor=ADMIN)  # and the imported user can be deleted


@pytest.mark.parametrize("bad", ["../../../etc/passwd", "a b", "x" * 200, "abc\n"])
def test_a_bad_id_is_refused_naming_the_row(plumbing_svc, bad):
    svc = plumbing_svc
    data = _export(svc)
    data["tables"]["memory"][0]["id"] = bad
    with pytest.raises(InvalidInput, match=r"memory row 1.*id"):
        svc.lifecycle.import_user(data, actor=ADMIN)
    assert svc.storage.index.count() == 0


def test_profile_values_and_texts_are_masked_again(plumbing_svc):
    svc = plumbing_svc
    data = _export(svc)
    data["tables"].setdefault("profilefield", []).append(
        {"user_key": "someone-else", "field": "city", "value": "call 139 0144 0461", "confidence": 1.0}
    )
    svc.lifecycle.import_user(data, actor=ADMIN)
    with svc.storage.db() as db:
        row = db.exec(select(ProfileField)).one()
    assert row.value == "call [phone ***0461]"


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.pop("user"), "no 'user'"),
        (lambda d: d["user"].pop("external_id"), "user.*external_id"),
        (lambda d: d["tables"].__setitem__("memory", [42]), "memory row 1"),
        (lambda d: d["tables"]["memory"][0].__setitem__("agent_id", "x\n"), "memory row 1.*agent"),
    ],
)
def test_malformed_files_get_clear_errors(plumbing_svc, mutate, message):
    data = _export(plumbing_svc)
    mutate(data)
    with pytest.raises(InvalidInput, match=message):
        plumbing_svc.lifecycle.import_user(data, actor=ADMIN)


@pytest.mark.parametrize("bad", ["agent\n", "agent\r\n"])
def test_ids_with_a_trailing_newline_are_refused(plumbing_svc, bad):
    """``$`` matches before a final newline; the patterns anchor with ``\\Z``."""
    from memory.storage.vectors import sql_literal

    with pytest.raises(InvalidInput):
        plumbing_svc.remember("u", "I like tea", agent_id=bad)
    with pytest.raises(ValueError):
        sql_literal("abc\n")


# -- crafted files against another user (the red team's four attacks, and more) ------------------------------------
def _victim_and_file(svc):
    """A victim with a row in every table, and the export of another user (deleted) to craft an attack from."""
    from test_lifecycle_delete import seed_user

    seed_user(svc, "victim", "zqvictim")
    seed_user(svc, "mallory", "zqmallory")
    victim = svc.lifecycle.export_user("victim", actor=ADMIN)
    data = svc.lifecycle.export_user("mallory", actor=ADMIN)
    svc.lifecycle.delete_user("mallory", actor=ADMIN)
    return victim, data


def _first(rows, **match):
    return next(r for r in rows if all(r.get(k) == v for k, v in match.items()))


def _attack_forged_message_without_its_session(v, d):
    """The parent table is left out of the file: the message names the victim's session."""
    d["tables"] = {"message": [{**d["tables"]["message"][0], "session_id": v["tables"]["session"][0]["id"]}]}


def _attack_summary_in_the_victims_session(v, d):
    d["tables"]["summaryanchor"][0]["session_id"] = v["tables"]["session"][0]["id"]


def _attack_memory_sourced_from_the_victims_message(v, d):
    """Purging this memory would blank the victim's message (message ids are sequential: easy to guess)."""
    d["tables"]["memory"][0]["source_message_ids"] = [v["tables"]["message"][0]["id"]]


def _attack_write_log_claims_the_victims_message(v, d):
    """A write-log row on the victim's message would stop it from becoming a memory."""
    d["tables"]["memoryevent"][0]["message_id"] = v["tables"]["message"][-1]["id"]


def _attack_hit_on_the_victims_retrieval(v, d):
    """A row hanging off the victim's retrieval would make the victim's erasure fail (foreign key)."""
    d["tables"]["retrievalhit"][0]["retrieval_id"] = v["tables"]["retrieval"][0]["id"]


def _attack_section_on_the_victims_snapshot(v, d):
    d["tables"]["contextsection"][0]["snapshot_id"] = v["tables"]["contextsnapshot"][0]["id"]


def _attack_turn_quotes_the_victims_messages(v, d):
    d["tables"]["turn"][0]["user_message_id"] = v["tables"]["message"][0]["id"]


def _attack_bridge_into_the_victims_session(v, d):
    d["tables"]["sessionbridge"][0]["to_session_id"] = v["tables"]["session"][1]["id"]


def _attack_supersede_the_victims_memory(v, d):
    d["tables"]["memory"][0]["superseded_by"] = v["tables"]["memory"][0]["id"]


def _attack_label_on_the_victims_memory(v, d):
    d["tables"]["hitlabel"][0]["memory_id"] = v["tables"]["memory"][0]["id"]


def _attack_profile_change_from_the_victims_message(v, d):
    d["tables"]["profilechange"][0]["source_message_id"] = v["tables"]["message"][1]["id"]


def _attack_event_on_the_victims_memory(v, d):
    d["tables"]["memoryevent"][0]["memory_id"] = v["tables"]["memory"][1]["id"]


ATTACKS = [
    _attack_forged_message_without_its_session,
    _attack_summary_in_the_victims_session,
    _attack_memory_sourced_from_the_victims_message,
    _attack_write_log_claims_the_victims_message,
    _attack_hit_on_the_victims_retrieval,
    _attack_section_on_the_victims_snapshot,
    _attack_turn_quotes_the_victims_messages,
    _attack_bridge_into_the_victims_session,
    _attack_supersede_the_victims_memory,
    _attack_label_on_the_victims_memory,
    _attack_profile_change_from_the_victims_message,
    _attack_event_on_the_victims_memory,
]


@pytest.mark.parametrize("attack", ATTACKS, ids=[a.__name__.removeprefix("_attack_") for a in ATTACKS])
def test_a_reference_to_another_users_row_refuses_the_whole_file(plumbing_svc, attack):
    svc = plumbing_svc
    victim, data = _victim_and_file(svc)
    attack(victim, data)
    with pytest.raises(InvalidInput, match=r"import refused: \w+ row \d+: .*not a \w+ of this file.*another user"):
        svc.lifecycle.import_user(data, actor=ADMIN)
    assert _user_ids(svc) == {"victim"}  # nothing written
    from memory import audit

    assert any("import refused" in e.reason for e in audit.events(svc.storage, action="denied"))  # audited
    assert _same_victim(svc.lifecycle.export_user("victim", actor=ADMIN), victim)
    svc.remember("victim", "I live in Porto.", session_id="old")  # the victim's statements still become memories
    assert any("Porto" in m.content for m in svc.list_memories(svc.get_user("victim")))
    svc.lifecycle.delete_user("victim", actor=ADMIN)  # and the victim can still be erased


def _same_victim(after, before):
    def strip(data):
        return {
            t: [{k: v for k, v in r.items() if not k.endswith("_at")} for r in rows]
            for t, rows in data["tables"].items()
        }

    return strip(after) == strip(before)


def test_ids_are_remapped_so_colliding_or_huge_ids_touch_nothing(plumbing_svc):
    """The file's ids are labels: a memory with the victim's memory id, or a message id near the sequence's end,
    becomes a new row with a new id; the victim's rows and the next ids are untouched."""
    svc = plumbing_svc
    victim, data = _victim_and_file(svc)
    victim_memory = victim["tables"]["memory"][0]
    old_id = data["tables"]["memory"][0]["id"]
    data["tables"]["memory"][0]["id"] = victim_memory["id"]
    for table in ("memoryevent", "retrievalhit", "hitlabel", "profilechange"):
        for row in data["tables"][table]:
            if row.get("memory_id") == old_id:
                row["memory_id"] = victim_memory["id"]
    first_msg = data["tables"]["message"][0]["id"]
    huge = 2**62
    data["tables"]["message"][0]["id"] = huge
    for row in data["tables"]["memory"]:
        row["source_message_ids"] = [huge if i == first_msg else i for i in row["source_message_ids"]]
    for row in data["tables"]["turn"] + data["tables"]["summaryanchor"] + data["tables"]["profilechange"]:
        for col in ("user_message_id", "from_message_id", "source_message_id"):
            if row.get(col) == first_msg:
                row[col] = huge
    svc.lifecycle.import_user(data, actor=ADMIN)
    assert _same_victim(svc.lifecycle.export_user("victim", actor=ADMIN), victim)
    mine = svc.lifecycle.export_user("mallory", actor=ADMIN)["tables"]
    assert victim_memory["id"] not in {m["id"] for m in mine["memory"]}
    assert max(m["id"] for m in mine["message"]) < 1000  # the database chose the ids
    by_id = {m["id"]: m for m in mine["message"]}
    sourced = [by_id[i]["content"] for m in mine["memory"] for i in m["source_message_ids"]]
    assert any("zqmallory hiking" in t for t in sourced)  # the references followed the remap
    svc.remember("new-user", "I live in Porto.")  # the sequences still work


def _deep(depth: int):
    value: object = 1
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d["tables"]["memory"][0].__setitem__("status", "hacked"), r"memory row 1: status 'hacked'"),
        (lambda d: d["tables"]["memory"][0].__setitem__("type", "root"), r"memory row 1: type 'root'"),
        (lambda d: d["tables"]["message"][0].__setitem__("role", "developer"), r"message row 1: role"),
        (lambda d: d["tables"]["memoryevent"][0].__setitem__("op", "DROP"), r"memoryevent row 1: op"),
        (lambda d: d["tables"]["memory"][0].__setitem__("importance", "high"), r"importance must be float"),
        (lambda d: d["tables"]["memory"][0].__setitem__("access_count", True), r"access_count must be int"),
        (lambda d: d["tables"]["message"][0].__setitem__("content", "x" * 6_000_000), r"6,000,000 characters"),
        (lambda d: d["tables"]["message"][0].__setitem__("meta", {"x": "y" * 90_000}), r"meta is over"),
        (lambda d: d["tables"]["memory"][0].__setitem__("created_at", "2999-01-01T00:00:00"), "plausible time"),
        (lambda d: d["tables"]["message"][0].__setitem__("meta", _deep(5_000)), "nested deeper than 32"),
        (lambda d: d["tables"]["memory"][0].__setitem__("updated_at", "1066-10-14T00:00:00"), "plausible time"),
        (lambda d: d["tables"]["memory"][1].__setitem__("id", d["tables"]["memory"][0]["id"]), "appears twice"),
        (lambda d: d["tables"]["message"][0].__setitem__("id", True), r"message row 1: id"),
        (lambda d: d["tables"]["memory"][0].__setitem__("source_message_ids", [{"$ne": 1}]), "is not an id"),
        (lambda d: d["tables"]["message"][0].pop("content"), r"message row 1: content is missing"),
        (lambda d: d["tables"]["message"][0].__setitem__("session_id", None), r"message row 1: session_id is empty"),
        (lambda d: d["tables"]["message"][0].__setitem__("evil", 1), r"unknown columns evil"),
        (lambda d: d["tables"].__setitem__("user", []), "not a table"),
        (lambda d: d["tables"]["session"][0].__setitem__("external_id", 7), "session row 1: external_id must be str"),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_values_are_checked_like_live_input(plumbing_svc, mutate, message):
    svc = plumbing_svc
    _victim, data = _victim_and_file(svc)
    mutate(data)
    with pytest.raises(InvalidInput, match=message):
        svc.lifecycle.import_user(data, actor=ADMIN)
    assert _user_ids(svc) == {"victim"}


def test_a_reference_to_a_row_deleted_before_the_export_is_cleared(plumbing_svc):
    """A memory outlives its deleted session's messages: the dangling ids name no row anywhere and are dropped."""
    svc = plumbing_svc
    _victim, data = _victim_and_file(svc)
    data["tables"]["memory"][0]["source_message_ids"] = [987_654]
    data["tables"]["profilefield"][0]["memory_ids"] = {"x": "0" * 31 + "1"}
    svc.lifecycle.import_user(data, actor=ADMIN)
    mine = svc.lifecycle.export_user("mallory", actor=ADMIN)["tables"]
    assert [] in [m["source_message_ids"] for m in mine["memory"]]
    assert mine["profilefield"][0]["memory_ids"] == {}


def test_every_reference_column_is_declared():
    """A new table's ``*_id`` column must be declared a reference (or not) for imports to check it."""
    from memory.lifecycle.export import user_tables
    from memory.lifecycle.import_check import JSON_MEMORY_MAPS, NOT_REFS, refs

    for table, *_ in user_tables():
        pk = {c.name for c in table.primary_key.columns}
        for col in table.c:
            if (col.name.endswith(("_id", "_ids")) or col.name == "superseded_by") and col.name not in pk:
                declared = col.name in refs(table) or (table.name, col.name) in JSON_MEMORY_MAPS
                assert declared or col.name in NOT_REFS, f"{table.name}.{col.name}"


def test_on_every_backend_a_crafted_file_is_refused_and_a_clean_one_gets_new_ids(backend_plumbing_svc):
    svc = backend_plumbing_svc
    victim, data = _victim_and_file(svc)
    crafted = copy.deepcopy(data)
    _attack_memory_sourced_from_the_victims_message(victim, crafted)
    with pytest.raises(InvalidInput, match="another user"):
        svc.lifecycle.import_user(crafted, actor=ADMIN)
    _rename_message(data, data["tables"]["message"][0]["id"], 2**62)  # remapped: the sequence does not move
    counts = svc.lifecycle.import_user(data, actor=ADMIN)
    assert counts["message"] == len(data["tables"]["message"])
    svc.remember("after", "I live in Porto.")  # the next ids still come from the sequence
    assert max(m["id"] for m in svc.lifecycle.export_user("after", actor=ADMIN)["tables"]["message"]) < 1000


def _rename_message(data, old, new) -> None:
    """Give a message of the file another id, and every reference to it (through ``REFS``) too."""
    from memory.lifecycle.import_check import REFS

    for row in data["tables"]["message"]:
        if row["id"] == old:
            row["id"] = new
    for table, columns in REFS.items():
        for column, target in columns.items():
            if target != "message":
                continue
            for row in data["tables"].get(table, []):
                value = row.get(column)
                if isinstance(value, list):
                    row[column] = [new if v == old else v for v in value]
                elif value == old:
                    row[column] = new


def _user_ids(svc) -> set[str]:
    return {u["user_id"] for u in svc.list_users()}
