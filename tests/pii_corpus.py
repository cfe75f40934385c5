"""A corpus of real-world spellings of personal data (EN and ZH context): each entry is (text, secret) where
``secret`` is the exact spelling that must never be stored. Used by the masking unit test and the byte scans."""

from __future__ import annotations

import re

ZW = "\u200b"  # zero-width space
NBSP = "\u00a0"
IDSP = "\u3000"  # ideographic space
EN_DASH, EM_DASH = "\u2013", "\u2014"


def _fw(s: str) -> str:
    """Full-width form, as a Chinese IME types digits and letters."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else ("\u3000" if c == " " else c) for c in s)


_SEPS = {
    "space": " ",
    "double-space": "  ",
    "nbsp": NBSP,
    "ideographic": IDSP,
    "dot": ".",
    "slash": "/",
    "underscore": "_",
    "en-dash": EN_DASH,
    "em-dash": EM_DASH,
    "tab": "\t",
    "newline": "\n",
    "zero-width": ZW,
    "dash": "-",
}


def _mobile_spellings() -> list[str]:
    out = [sep.join(("139", "0144", "0461")) for sep in _SEPS.values()]
    out += ["13901440461", _fw("13901440461"), " ".join("13901440461"), ZW.join("13901440461")]
    out += ["(139) 0144-0461", "+86 139 0144 0461", "+86-139-0144-0461", "0086 13901440461", "86-13901440461"]
    out += ["+8613901440461", _fw("+86 139 0144 0461"), "139 014 404 61", "1390144 0461"]
    return out


def _separator_spellings() -> list[str]:
    """A second mobile, a Mastercard and an ID, each grouped with every separator."""
    out = []
    for sep in _SEPS.values():
        out += [sep.join(("138", "1234", "5678")), sep.join(("5555", "5555", "5555", "4444"))]
        out += [sep.join(("110105", "19491231", "002X"))]
    return out


def _id_spellings() -> list[str]:
    valid, wrong = "330106199104223104", "330106199104223105"  # wrong = bad check digit, still personal data
    out = [valid, wrong, "11010519491231002X", "11010519491231002x", _fw(valid), "330106 19910422 3104"]
    out += ["330106-19910422-3104", "3301 0619 9104 2231 04", ZW.join(valid), valid[:6] + NBSP + valid[6:]]
    out += ["110105 19491231 002X", _fw("11010519491231002X"), "330106.19910422.3104", "330106" + IDSP + "199104223104"]
    return out


def _card_spellings() -> list[str]:
    v = "4242424242424242"
    out = [v, "4242 4242 4242 4242", "4242-4242-4242-4242", _fw(v), "4242\u00a04242\u00a04242\u00a04242"]
    out += ["4242" + EN_DASH + "4242" + EN_DASH + "4242" + EN_DASH + "4242", "4242.4242.4242.4242", ZW.join(v)]
    out += ["6222021234567890128", "6222 0212 3456 7890 128", "5555 5555 5555 4444", "378282246310005"]
    out += ["4111_1111_1111_1111", "4111/1111/1111/1111", "4000  0566  5566  5556", "6011 1111 1111 1117"]
    return out


def _phone_spellings() -> list[str]:
    return [
        "415 555 0132",
        "(415) 555-0132",
        "415-555-0132",
        "415.555.0132",
        "+1 415 555 0132",
        "+1 (415) 555-0132",
        "1-415-555-0132",
        "021-6234 5678",
        "021 6234 5678",
        "(021) 62345678",
        "010-12345678",
        "010 1234 5678",
        "+86 10 1234 5678",
        "+86-21-6234-5678",
        "0044 20 7946 0958",
        "+44 20 7946 0958",
        "+44.20.7946.0951",
        "+44 (0)20 7946 0958",
        "020 7946 0958",
        "+49 30 901820",
        "+33 1 42 68 53 00",
        "+81 3-1234-5678",
        "+852 2123 4567",
        "+65 6123 4567",
        _fw("021-6234 5678"),
        "４１５ ５５５ ０１３２",
        "415" + NBSP + "555" + NBSP + "0132",
        "415" + EN_DASH + "555" + EN_DASH + "0132",
    ]


def _email_spellings() -> list[str]:
    return [
        "lin.wei@example.com",
        "Lin.Wei+tag@example.co.uk",
        "lin_wei@mail.example.org",
        "用户@例子.中国",
        "lin.wei＠example.com",
        _fw("lin.wei@example.com"),
        "lin" + ZW + ".wei@example.com",
        "lin.wei@exam" + ZW + "ple.com",
        '"lin wei"@example.com',
        '"lin@home"@example.com',
        "root@localhost",
        "admin@[127.0.0.1]",
        "lin.wеi@example.com",  # Cyrillic е
        "lіn@exаmple.com",  # Cyrillic і and а
        "josé@correo.es",
        "müller@bücher.de",
        "lin.wei@EXAMPLE.COM",
        "lin.wei @ example.com".replace(" ", ""),
        "o'brien@example.ie",
        "lin.wei@sub.domain.example.museum",
        "张伟@公司.中国",
        "info@bücher.example",
        "LIN.WEI@EXAMPLE.COM",
        "lin.wei@example.com".replace("@", "\ufe6b"),  # small commercial at
        "w" + ZW + "e" + ZW + "i@example.cn",
        "ops@[IPv6:2001:db8::1]",
        "user@localhost",
        "a.b-c_d@x-y.example.net",
    ]


def _iban_spellings() -> list[str]:
    return [
        "GB82 WEST 1234 5698 7654 32",
        "GB82WEST12345698765432",
        "DE89 3704 0044 0532 0130 00",
        "FR14 2004 1010 0505 0001 3M02 606",
    ]


_EN = [
    "my number is {}",
    "call me on {} tomorrow",
    "card no. {}",
    "card # {}",
    "I prefer card {} for travel",
    "ID: {}",
    "write to {} please",
    "reach me at {}.",
]
_ZH = ["我的手机是{}", "电话：{}，谢谢", "工资卡编号{}", "身份证号{}", "我的邮箱是 {} 。", "请打{}找我"]


def corpus() -> list[tuple[str, str]]:
    """(text, secret) pairs: each spelling inside an English or a Chinese sentence (alternating templates)."""
    groups = [
        (_mobile_spellings(), [_ZH[0], _EN[0], _ZH[1], _EN[1], _ZH[5]]),
        (_id_spellings(), [_ZH[3], _EN[5]]),
        (_separator_spellings(), [_ZH[0], _EN[0], _ZH[3], _EN[5], _EN[2], _ZH[2]]),
        (_card_spellings(), [_EN[2], _EN[3], _ZH[2], _EN[4]]),
        (_phone_spellings(), [_EN[0], _ZH[1], _EN[1], _ZH[5]]),
        (_email_spellings(), [_EN[6], _ZH[4], _EN[7]]),
        (_iban_spellings(), ["my IBAN is {}", "我的账户 {}"]),
    ]
    out = []
    for spellings, templates in groups:
        en = [t for t in templates if t.isascii()] or templates
        zh = [t for t in templates if not t.isascii()] or templates
        for i, s in enumerate(spellings):
            out.append((en[i % len(en)].format(s), s))
            out.append((zh[i % len(zh)].format(s), s))
    return out


def _fold(text: str) -> str:
    """NFKC, without zero-width characters, lower case: how a reader would still recognise the value."""
    import unicodedata

    return unicodedata.normalize("NFKC", text).replace(ZW, "").lower()


def leaked(stored: str, secret: str) -> bool:
    """True when ``stored`` still shows ``secret``: its exact spelling, or (for numbers) every digit but the last 4
    in a row, or (for addresses) the folded address."""
    if secret in stored:
        return True
    digits = re.sub(r"\D", "", _fold(secret))
    if "@" not in _fold(secret) and len(digits) >= 7:
        return digits[:-4] in re.sub(r"\D", "", _fold(stored))
    return _fold(secret) in _fold(stored)
