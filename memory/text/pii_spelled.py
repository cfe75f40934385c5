"""Personal data written so that the digit and ``@`` detectors would not see it.

- **Spoken digits**: phone and ID numbers in Chinese numerals (一三九…, 幺, 壹贰叁…) or English words ("one three
  nine oh …", "double five") are turned into digits in the detection copy (:func:`spoken_digits`), so the number
  detectors of :mod:`memory.text.pii_numbers` classify them like any other spelling. English words count only in a
  run of at least seven, so "one or two" stays words.
- **Spelled addresses**: ``lin at example dot com``, ``lin(at)example(dot)com``, ``lin(a)example.com``,
  ``lin_at_example_dot_com``, ``lin.at.example.dot.com``, ``lin 艾特 qq 点 com``, ``lin＃qq.com``,
  ``lin @ example . com``, letters spaced out one by one. The domain must end in a common top-level
  domain, so "meet at school" or "at home dot" stay as they are.
- **SSN** (US, python-stdnum's rules: no 000/666/9xx area, no 00 group, no 0000 serial): ``536-22-8841`` shaped
  3-2-4 anywhere (dashes, dots, one to three spaces, spaced dashes ``536 - 22 - 8841``); nine digits in a row only
  after an "SSN" / "social security" word, which may touch Chinese text ("我的SSN是…").
- **Passport numbers**: after a passport word (passport, 护照, 護照) within a few characters, one or two letters
  and 6-9 digits or nine digits; anywhere, the mainland shape E/G + 8 digits, and a machine-readable zone line
  (the name line ``P<UTOERIKSSON<<ANNA…`` or the number line with the birth date), masked whole.
- **IP addresses** (validated by :mod:`ipaddress`): IPv4, also with spaced or spelled dots (``192 dot 168 …``),
  and IPv6; a dotted number right after "v" / "version" / "版本" is a version, not an address.

Every pattern is applied at bounded windows around an anchor (an ``at`` word, a dot word, a digit run), so the
scan stays linear in the text.
"""

from __future__ import annotations

import ipaddress
import re

from memory.text.pii_numbers import VERSION_BEFORE

_ZH_DIGITS = {
    **dict(zip("零〇一二三四五六七八九", "00123456789", strict=True)),
    **dict(zip("壹贰叁肆伍陆柒捌玖貳參陸", "123456789236", strict=True)),
    "幺": "1",
    "两": "2",
    "兩": "2",
}
_EN_WORDS = {
    "zero": "0",
    "oh": "0",
    "o": "0",
    "nil": "0",
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
}
_WORD = r"(?:zero|oh|o|nil|one|two|three|four|five|six|seven|eight|nine|double|triple|plus)"
_WORD_RUN = re.compile(rf"(?<![A-Za-z]){_WORD}(?:[ ,\-.]{{1,3}}{_WORD}){{6,}}(?![A-Za-z])", re.IGNORECASE)
_ONE_WORD = re.compile(rf"(?<![A-Za-z]){_WORD}(?![A-Za-z])", re.IGNORECASE)


def spoken_digits(norm: str, origin: list[int]) -> tuple[str, list[int]]:
    """The detection copy with Chinese numerals and runs of English number words as ASCII digits (``origin`` maps
    each character back to the original text, as :func:`memory.text.normalise.normalised` does)."""
    if not any(ch in _ZH_DIGITS for ch in norm) and not _WORD_RUN.search(norm):
        return norm, origin
    parts: list[str] = []
    out_origin: list[int] = []
    pos = 0
    for run in _WORD_RUN.finditer(norm):
        _copy_zh(norm, origin, pos, run.start(), parts, out_origin)
        repeat = 1
        for w in _ONE_WORD.finditer(run.group()):
            word = w.group().lower()
            at = origin[run.start() + w.start()]
            if word in ("double", "triple"):
                repeat = 2 if word == "double" else 3
                continue
            digit = "+" if word == "plus" else _EN_WORDS[word]
            parts.append(digit * repeat)
            out_origin.extend([at] * repeat)
            repeat = 1
        pos = run.end()
    _copy_zh(norm, origin, pos, len(norm), parts, out_origin)
    return "".join(parts), out_origin


def _copy_zh(norm: str, origin: list[int], start: int, end: int, parts: list[str], out_origin: list[int]) -> None:
    for i in range(start, end):
        parts.append(_ZH_DIGITS.get(norm[i], norm[i]))
    out_origin.extend(origin[start:end])


# -- spelled e-mail addresses -----------------------------------------------------------------------------------
_AT = (
    r"(?:\s*[-_.]?(?:[(\[{<（【]\s*at?\s*[)\]}>）】]|(?<![A-Za-z])at(?:\s*sign)?(?![A-Za-z])|艾特|圈a|小老鼠|at符号|[@#&])"
    r"[-_.]?\s*)"
)
_DOT = r"(?:\s*[-_]?(?:[(\[{<（【]\s*dot\s*[)\]}>）】]|(?<![A-Za-z])dot(?![A-Za-z])|点|點|。|\.)[-_]?\s*)"
_TLD = (
    r"(?:com|net|org|edu|gov|mil|int|info|biz|io|co|me|cn|hk|tw|mo|jp|kr|sg|in|uk|us|ca|au|nz|de|fr|es|it|nl|"
    r"ru|br|eu|xyz|top|cc|tv|ai|app|dev)"
)
_LABEL = r"[A-Za-z0-9][A-Za-z0-9_%+\-]{0,62}"
_SPELLED_EMAIL = re.compile(
    rf"(?<![A-Za-z0-9_.%+\-])(?:{_LABEL}(?:{_DOT}{_LABEL}){{0,3}}|(?:[A-Za-z0-9] ){{2,40}}[A-Za-z0-9])"
    rf"{_AT}(?:{_LABEL}{_DOT}){{1,4}}{_TLD}(?![A-Za-z0-9])|"
    rf"(?<![A-Za-z0-9])(?:[A-Za-z0-9] ){{2,40}}[A-Za-z0-9] ?@ ?(?:[A-Za-z0-9] ?){{1,40}}\. ?(?:[a-z] ?){{1,5}}[a-z]\b",
    re.IGNORECASE,
)
_ANCHOR = re.compile(r"[@#&]|(?<![A-Za-z])at(?![A-Za-z])|[(\[（【] ?a ?[)\]）】]|艾特|圈a|小老鼠", re.IGNORECASE)
#: where a spelled address could end: a (spelled) dot and a top-level domain
_ENDING = re.compile(rf"{_DOT}{_TLD}(?![A-Za-z0-9])|\. ?(?:[a-z] ){{1,4}}[a-z](?![A-Za-z0-9])", re.IGNORECASE)


def spelled_emails(norm: str) -> list[tuple[str, int, int]]:
    """Addresses whose ``@`` or dots are spelled, replaced or spaced (``email`` spans of the detection copy)."""
    out: list[tuple[str, int, int]] = []
    endings = [m.end() for m in _ENDING.finditer(norm)]
    if not endings:
        return out
    last, k = 0, 0
    for anchor in _ANCHOR.finditer(norm):
        while k < len(endings) and endings[k] <= anchor.end():
            k += 1
        if k == len(endings):
            break
        if anchor.start() < last or endings[k] > anchor.end() + 300:
            continue  # no top-level domain close enough after this anchor
        lo = max(last, anchor.start() - 130)
        window = norm[lo : endings[k]]
        for m in _SPELLED_EMAIL.finditer(window):
            start, end = lo + m.start(), lo + m.end()
            if start <= anchor.start() < end and _plausible(norm, start, m.group()):
                out.append(("email", start, end))
                last = end
                break
    return out


_AT_PARTS = re.compile(_AT, re.IGNORECASE)
_SPELLED_DOT = re.compile(r"(?<![A-Za-z])dot(?![A-Za-z])|点|點|。", re.IGNORECASE)
_EMAIL_CUES = re.compile(r"e-?mail|mail|address|write to|contact|reach|邮箱|郵箱|邮件|郵件|地址|联系", re.IGNORECASE)
#: words before " at " that make a sentence, not an address ("we met at Google dot com", "I paid 100 at …")
_SENTENCE_WORDS = frozenset(
    [
        "i",
        "me",
        "we",
        "you",
        "he",
        "she",
        "they",
        "it",
        "is",
        "am",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "met",
        "meet",
        "meeting",
        "work",
        "works",
        "worked",
        "working",
        "live",
        "lives",
        "lived",
        "stay",
        "stayed",
        "paid",
        "pay",
        "bought",
        "buy",
        "job",
        "intern",
        "engineer",
        "look",
        "looking",
        "see",
        "seen",
        "arrive",
        "arrived",
        "here",
        "there",
        "that",
        "this",
        "what",
        "who",
        "someone",
        "somebody",
        "everyone",
        "people",
        "friend",
        "friends",
    ]
)


def _plausible(norm: str, start: int, found: str) -> bool:
    """Is a spelled match an address rather than a sentence? A bare "at" needs a spelled dot, a local part with a
    digit or a dot, or an e-mail word just before; a replaced ``@`` (# or &) needs a real-looking local part."""
    at = _AT_PARTS.search(found)
    if at is None or "@" in at.group():
        return True
    local = found[: at.start()].strip()
    cue = _EMAIL_CUES.search(norm, max(0, start - 40), start) is not None
    if at.group().strip(" -_") in ("#", "&"):
        return len(local) >= 3 and (cue or not local.isdigit())
    if local.casefold() in _SENTENCE_WORDS:
        return False
    if local.isdigit():
        return cue
    spelled = _SPELLED_DOT.search(found, at.end()) is not None or not re.fullmatch(r"(?i)\s*at\s*", at.group())
    return cue or spelled or any(ch.isdigit() or ch in "._" for ch in local)


# -- SSN, passport, IP ------------------------------------------------------------------------------------------
_SSN = re.compile(r"(?<![\d\-])(\d{3})( {0,2}- {0,2}| {1,3}|\. ?|)(\d{2})\2(\d{4})(?![\d\-])")
#: "SSN" beside Chinese text has no word boundary ("我的SSN是…"): letters, not \b, delimit it
_SSN_WORDS = re.compile(r"(?<![A-Za-z])ssn(?![A-Za-z])|social\s*security|社会安全|社會安全|社保号", re.IGNORECASE)
_PASSPORT_WORDS = re.compile(r"passport|护照|護照", re.IGNORECASE)
_PASSPORT = re.compile(r"(?<![A-Za-z0-9])(?:[A-Za-z]{1,2} ?[0-9](?: ?[0-9A-Za-z]){5,8}|[0-9]{9})(?![A-Za-z0-9])")
_CN_PASSPORT = re.compile(r"(?<![A-Za-z0-9])[EG][0-9]{8}(?![A-Za-z0-9])")
_IPV4 = re.compile(
    r"(?<![\d.])(\d{1,3})(?:(?:\s?\.\s?|\s?(?:dot|点|點|。)\s?)(\d{1,3})){3}(?![\d]|\.\d)", re.IGNORECASE
)
_IPV6 = re.compile(
    r"(?<![0-9A-Fa-f:])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:[0-9A-Fa-f]{0,4}|\d{1,3}(?:\.\d{1,3}){3})(?![0-9A-Fa-f:])"
)


def _ssn_valid(digits: str) -> bool:
    from stdnum.us import ssn

    return ssn.is_valid(digits)


def ssns(norm: str) -> list[tuple[str, int, int]]:
    out = []
    for m in _SSN.finditer(norm):
        digits = m.group(1) + m.group(3) + m.group(4)
        shaped = m.group(2) != ""
        if (shaped or _SSN_WORDS.search(norm, max(0, m.start() - 40), m.start())) and _ssn_valid(digits):
            out.append(("ssn", m.start(), m.end()))
    return out


def passports(norm: str) -> list[tuple[str, int, int]]:
    out = [("passport", m.start(), m.end()) for m in _CN_PASSPORT.finditer(norm)]
    for word in _PASSPORT_WORDS.finditer(norm):
        window_end = min(len(norm), word.end() + 40)
        for m in _PASSPORT.finditer(norm, word.end(), window_end):
            if any(ch.isdigit() for ch in m.group()):
                out.append(("passport", m.start(), m.end()))
                break
    return out


#: a machine-readable zone line (ICAO 9303): 30-44 capitals, digits and fillers "<" — a passport's name line
#: (P<UTOERIKSSON<<ANNA…) or its number line (document number, nationality, birth date, sex, expiry, checks); a
#: scanner or a person may put spaces between its fields
_MRZ = re.compile(r"(?<![A-Za-z0-9<])[A-Z0-9<](?: ?[A-Z0-9<]){29,47}(?![A-Za-z0-9<])")


_MRZ_NUMBER_LINE = re.compile(r"[A-Z0-9<]{9}[0-9<][A-Z<]{3}[0-9]{6}[0-9<][MFX<][0-9]{6}[0-9<]")


def machine_readable_zones(norm: str) -> list[tuple[str, int, int]]:
    """Passport / ID machine-readable lines: a run of 30+ MRZ characters holding a filler pair "<<" (a name line),
    or shaped as a number line (document number, check, nationality, birth date, check, sex, expiry, check)."""
    out = []
    for m in _MRZ.finditer(norm):
        line = m.group().replace(" ", "")
        if len(line) >= 30 and ("<<" in line or _MRZ_NUMBER_LINE.match(line)):
            out.append(("passport", m.start(), m.end()))
    return out


def ips(norm: str) -> list[tuple[str, int, int]]:
    out = []
    for m in _IPV4.finditer(norm):
        octets = re.findall(r"\d{1,3}", m.group())
        if len(octets) != 4 or any(int(o) > 255 for o in octets):
            continue
        if VERSION_BEFORE.search(norm, max(0, m.start() - 12), m.start()):
            continue
        out.append(("ip", m.start(), m.end()))
    for m in _IPV6.finditer(norm):
        value = m.group()
        if value.count(":") < 2 or len(value) < 6 or not re.search(r"[0-9A-Fa-f]{2}", value):
            continue
        try:
            ipaddress.IPv6Address(value)
        except ValueError:
            continue
        out.append(("ip", m.start(), m.end()))
    return out
