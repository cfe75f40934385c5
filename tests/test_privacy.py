"""PII masking: every kind masked, ordinary numbers untouched, and nothing unmasked anywhere in the data folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory.text.privacy import find_pii, id_card_valid, luhn_valid, mask_pii

PII = {
    "id-card": ("11010519491231002X", "[id-card ***002X]"),
    "bank-card": ("4242 4242 4242 4242", "[bank-card ***4242]"),
    "bank-card-dashes": ("6222-0212-3456-7890-128", "[bank-card ***0128]"),
    "cn-mobile": ("13812345678", "[phone ***5678]"),
    "cn-mobile-+86": ("+86 139-1234-5678", "[phone ***5678]"),
    "intl": ("+44 20 7946 0958", "[phone ***0958]"),
    "email": ("lin.wei@example.com", "[email]"),
}


@pytest.mark.parametrize("kind", sorted(PII))
def test_each_kind_is_masked_keeping_at_most_four(kind):
    raw, masked = PII[kind]
    assert mask_pii(f"mine is {raw}, thanks") == f"mine is {masked}, thanks"
    assert mask_pii(f"我的是{raw}。") == f"我的是{masked}。"


@pytest.mark.parametrize(
    "text",
    [
        "The meeting is on 2025-05-01 at 14:30.",
        "It costs ¥5000 or $1,299.99.",
        "预算五千，大概5000元",
        "Order ORD-20240501-123456 shipped.",
        "订单号 4242424242424242 已发货",
        "tracking number 4111111111111111",
        "Timestamp 20240501123045, version 3.11.7",
        "Call ext. 1234 before 2025年5月1日",
        "I was born in 1990.",
        "Invoice no. 5555555555554444",
        "I prefer the 10:30 slot on 2025/05/01, room 101 102 103",
        "Scores: 98 87 93 88 91, version 3.11.7, release 192.168.1.1",
    ],
)
def test_ordinary_numbers_stay(text):
    assert mask_pii(text) == text and find_pii(text) == []


def test_an_id_shaped_number_with_a_wrong_check_digit_is_still_masked():
    assert mask_pii("The ID 110105194912310021 has a bad checksum") == "The ID [id-card ***0021] has a bad checksum"


@pytest.mark.parametrize(
    "text",
    ["415 555 0132", "021-6234 5678", "010-12345678", "0044 20 7946 0958"],
)
def test_phones_in_national_formats(text):
    assert mask_pii(f"call {text}") == f"call [phone ***{text.replace(' ', '').replace('-', '')[-4:]}]"


def test_checks_are_real_checksums():
    assert id_card_valid("11010519491231002X") and not id_card_valid("110105194912310021")
    assert luhn_valid("4242424242424242") and not luhn_valid("4242424242424241")


def test_masking_is_idempotent():
    once = mask_pii("call 13812345678 or mail a@b.co")
    assert mask_pii(once) == once


def _all_bytes(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())


@pytest.mark.slow
def test_nothing_unmasked_reaches_sql_lancedb_or_logs(svc, settings):
    secrets = [
        "11010519491231002X",
        "4242424242424242",
        "4242 4242 4242 4242",
        "13812345678",
        "lin.wei@example.com",
        "+44 20 7946 0958",
        "6222021234567890128",
    ]
    svc.remember("lin", "Call me Lin. My phone is 13812345678 and my email is lin.wei@example.com.")
    svc.remember("lin", "我的身份证号是11010519491231002X，银行卡 4242 4242 4242 4242，我住在杭州。")
    svc.remember("lin", "I live in London, my number is +44 20 7946 0958, card 6222021234567890128")
    u = svc.ensure_user("lin")
    svc.add_memory(u, "User's backup email is lin.wei@example.com")
    svc.recall("lin", "what is 13812345678 and lin.wei@example.com")
    svc.storage.index.optimize()
    svc.close()
    blob = _all_bytes(settings.data_dir)
    assert blob, "the data folder is empty"
    for s in secrets:
        assert s.encode() not in blob, s
    assert b"[phone ***5678]" in blob and b"[email]" in blob


def test_record_ids_in_reasons_are_never_masked():
    """A memory id inside a write-log reason or event detail is a reference: masking digit runs in it broke links."""
    import uuid

    from memory.text.privacy import mask_pii, mask_value

    for _ in range(3000):
        rid = uuid.uuid4()
        for form in (rid.hex, str(rid)):
            reason = f"duplicate of {form} (similarity 0.97)"
            assert mask_pii(reason) == reason
            assert mask_value({"superseded_by": form}) == {"superseded_by": form}
    assert mask_pii("call 13901440461 about 27ec4412220543e59b1178195fadcd8e") == (
        "call [phone ***0461] about 27ec4412220543e59b1178195fadcd8e"
    )
