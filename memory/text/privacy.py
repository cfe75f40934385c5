"""PII detection and masking, applied before anything is stored, embedded or logged.

Detection runs on a normalised copy of the text (:mod:`memory.text.normalise`: HTML character references and URL
escapes decoded, NFKC, every digit ASCII, keycap marks and invisible characters dropped, every space and dash
canonical) and masks the matching spans of the *original* text, so ``１３９ ０１４４ ０４６１``,
``139\u200b0144\u200b0461``, ``1️⃣3️⃣9️⃣…``, ``lin＠example.com``, ``lin&#64;example.com`` and ``lin%40example.com``
are caught like plain spellings.

- ``email``: a local part (plain, Unicode or quoted) ``@`` a domain (ASCII or internationalised), ``localhost`` or an
  address literal ``[127.0.0.1]`` → ``[email]``.
- ``id-card``: an 18-character mainland China resident ID shape (region code, plausible birth date, check character)
  — masked even with a wrong check character → ``[id-card ***123X]``.
- ``bank-card``: 13-19 digits with an issuer prefix and a valid Luhn sum (python-stdnum); an order/tracking word just
  before it (whole words: "ref" never matches inside "prefer") exempts it unless a card word is there too →
  ``[bank-card ***4242]``.
- ``iban``: a checksummed IBAN (python-stdnum), in capitals or lower case, grouped by spaces or dashes →
  ``[iban ***5432]``.
- ``phone``: numbers valid for phonenumbers, international (``+``/``00``) or national (China, trunk-0 regions,
  North America) → ``[phone ***5678]``.

The masked form keeps the kind and at most the last 4 characters, and contains nothing any detector matches again,
so masking is idempotent. Every step is linear in the text (20,000 characters mask in a few milliseconds).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from stdnum import iban as _iban

from memory.text.language import is_east_asian
from memory.text.normalise import normalised, original_span
from memory.text.pii_numbers import find_numbers, id_card_valid, luhn_valid
from memory.text.pii_spelled import ips, machine_readable_zones, passports, spelled_emails, spoken_digits, ssns

__all__ = ["PiiMatch", "find_pii", "id_card_valid", "luhn_valid", "mask_pii", "mask_value"]

#: a text without any of these holds no PII this module finds (most words skip every detector)
_MAYBE = re.compile(
    r"<<|[(\[（【] ?a ?[)\]）】]|[\d@＠﹫#＃&%零〇一二三四五六七八九幺两兩壹贰叁肆伍陆柒捌玖]|艾特|圈a|小老鼠|"
    r"(?<![A-Za-z])(?:at|dot|zero|oh|one|two|three|four|five|six|seven|eight|nine)(?![A-Za-z])",
    re.IGNORECASE,
)
# MemLens's own record ids (uuid4 hex, with or without dashes) often hold digit runs that read as phone numbers; they
# are references, not personal data, and masking them would break the links stored in reasons and event details.
_RECORD_ID = re.compile(
    r"(?<![0-9A-Za-z])(?=[0-9-]*[a-f])(?:[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"
    r"(?![0-9A-Za-z])"
)
_LOCAL_CHARS = set("._%+-'!#$&*=?^`{|}~")
_DOMAIN_ASCII = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}(?![A-Za-z0-9-])")
_DOMAIN_IDN = re.compile(r"(?:[^\W_](?:[\w-]{0,62})?\.)+[^\W\d_]{2,63}")
_DOMAIN_SPECIAL = re.compile(r"localhost\b|\[(?:IPv6:)?[0-9A-Fa-f.:]{2,45}\]", re.IGNORECASE)
_IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{2}[0-9]{2}(?:[ -]?[A-Za-z0-9]){11,30}")


@dataclass(frozen=True)
class PiiMatch:
    kind: str  # email | id-card | bank-card | iban | phone | ssn | passport | ip
    start: int  # in the original text
    end: int
    text: str  # the original characters
    canonical: str = ""  # the same span, normalised (the masked tail comes from here)

    @property
    def masked(self) -> str:
        if self.kind == "email":
            return "[email]"
        tail = re.sub(r"[^0-9A-Za-z]", "", self.canonical or self.text)[-4:].upper()
        return f"[{self.kind} ***{tail}]"


def _local_start(norm: str, at: int) -> int:
    """Where the local part before ``@`` starts (``at`` itself when there is none)."""
    if at and norm[at - 1] == '"':
        opening = norm.rfind('"', max(0, at - 66), at - 1)
        return opening if opening >= 0 and "\n" not in norm[opening:at] else at
    i, cjk = at, at > 0 and is_east_asian(norm[at - 1])
    while i > max(0, at - 64):
        ch = norm[i - 1]
        if not (ch in _LOCAL_CHARS or (ch.isalnum() and is_east_asian(ch) == cjk)):
            break
        i -= 1
    while i < at and norm[i] in ".-'":
        i += 1
    return i


def _domain_end(norm: str, pos: int) -> int:
    """Where the domain after ``@`` ends (``pos`` itself when there is none)."""
    for pattern in (_DOMAIN_SPECIAL, _DOMAIN_ASCII, _DOMAIN_IDN):
        m = pattern.match(norm, pos)
        if m:
            return m.end()
    return pos


def _emails(norm: str) -> list[tuple[str, int, int]]:
    out = []
    at = norm.find("@")
    while at >= 0:
        start, end = _local_start(norm, at), _domain_end(norm, at + 1)
        if start < at and end > at + 1:
            out.append(("email", start, end))
        at = norm.find("@", max(end, at + 1))
    return out


def _ibans(norm: str) -> list[tuple[str, int, int]]:
    out = []
    for m in _IBAN.finditer(norm):
        value = m.group()
        for cut in range(len(value), 14, -1):  # the pattern may run into following words: shrink to a valid one
            if cut < len(value) and value[cut] not in " -" or not 15 <= len(re.sub("[ -]", "", value[:cut])) <= 34:
                continue
            if _iban.is_valid(value[:cut].upper()):  # lower case too: a checksum, not a case, makes it an IBAN
                out.append(("iban", m.start(), m.start() + cut))
                break
    return out


def find_pii(text: str) -> list[PiiMatch]:
    """Every PII span of ``text`` (original positions), left to right, without overlaps (e-mails, spelled e-mails,
    IBANs, IP addresses, SSNs, passports, then numbers)."""
    if not text or not _MAYBE.search(text):
        return []
    norm, origin = spoken_digits(*normalised(text))
    covered = bytearray(len(norm))
    for rid in _RECORD_ID.finditer(norm):
        covered[rid.start() : rid.end()] = b"\x01" * (rid.end() - rid.start())
    found: list[PiiMatch] = []
    spans = _emails(norm) + spelled_emails(norm) + _ibans(norm) + machine_readable_zones(norm) + ips(norm)
    spans += ssns(norm) + passports(norm)
    spans += [(h.kind, h.start, h.end) for h in find_numbers(norm)]
    for kind, s, e in spans:
        if any(covered[s:e]):
            continue
        covered[s:e] = b"\x01" * (e - s)
        o_start, o_end = original_span(origin, s, e, len(text))
        found.append(PiiMatch(kind, o_start, o_end, text[o_start:o_end], norm[s:e]))
    return sorted(found, key=lambda p: p.start)


def mask_pii(text: str) -> str:
    """``text`` with every PII span replaced by its masked form (kind + at most the last 4 characters)."""
    matches = find_pii(text) if text else []
    if not matches:
        return text
    out, pos = [], 0
    for m in matches:
        out.append(text[pos : m.start])
        out.append(m.masked)
        pos = m.end
    out.append(text[pos:])
    return "".join(out)


def mask_value(value: Any) -> Any:
    """Mask strings inside JSON-like values (profile values, event details)."""
    if isinstance(value, str):
        return mask_pii(value)
    if isinstance(value, list):
        return [mask_value(v) for v in value]
    if isinstance(value, dict):
        return {k: mask_value(v) for k, v in value.items()}
    return value
