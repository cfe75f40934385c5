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


# -- the categorised corpus (issue #30): spellings written before the masker was changed, by category --------------
_ZH_NUM = dict(zip("0123456789", "零一二三四五六七八九", strict=True))
_ZH_CAP = dict(zip("0123456789", "零壹贰叁肆伍陆柒捌玖", strict=True))
_EN_NUM = dict(
    zip("0123456789", ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"], strict=True)
)


def _zh(digits: str, table: dict[str, str] = _ZH_NUM, one: str = "一") -> str:
    return "".join(one if d == "1" else table.get(d, d) for d in digits)


def _words(digits: str, zero: str = "zero", sep: str = " ") -> str:
    return sep.join(zero if d == "0" else _EN_NUM.get(d, d) for d in digits)


def _mobiles(n: int, seed: int) -> list[str]:
    """``n`` distinct valid mainland mobiles (phonenumbers accepts every 13x/15x/18x number)."""
    import random

    rng = random.Random(seed)
    return [rng.choice(["139", "138", "186", "158", "135"]) + f"{rng.randrange(10**8):08d}" for _ in range(n)]


def _with_check(body17: str) -> str:
    weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
    return body17 + "10X98765432"[sum(int(d) * w for d, w in zip(body17, weights, strict=True)) % 11]


def _ids18(n: int) -> list[str]:
    return [
        _with_check(f"{r}{y}{m:02d}{d:02d}{s:03d}")
        for r, y, m, d, s in zip(
            ["330106", "110105", "440305", "310104", "510107", "320102", "420106", "610113", "370202", "210102"] * 3,
            [str(1950 + 3 * i) for i in range(n)],
            [1 + i % 12 for i in range(n)],
            [1 + (7 * i) % 28 for i in range(n)],
            [100 + 37 * i for i in range(n)],
            strict=False,
        )
    ][:n]


def _luhn_complete(prefix: str, length: int) -> str:
    from stdnum import luhn

    body = (prefix + "4735920618" * 3)[: length - 1]
    return body + luhn.calc_check_digit(body)


def _email_spelled_en() -> list[str]:
    ats = [" at ", " (at) ", "[at]", " [at] ", "(at)", " AT ", "{at}", " <at> ", "-at-", " at sign "]
    dots = [" dot ", " (dot) ", "[dot]", " DOT ", ".", " . ", "(dot)", " dot ", "{dot}", " [dot] "]
    out = []
    for i, (a, d) in enumerate(zip(ats * 3, dots * 3 + dots, strict=False)):
        local = f"zqlin{i:02d}"
        out.append(f"{local}{a}example{d}com")
    out += [f"zqwei{i} at mail{d}example{d}org" for i, d in enumerate([" dot ", ".", " (dot) "])]
    out += ["zqdot dot wei at example dot com", "zqhash#example.com", "zqhash2 # gmail.com", "zqamp&gmail.com"]
    out += ["zqspace @ example . com", "zq.spaced @ mail . example . co . uk", "z q s p @ e x a m p l e . c o m"]
    return out


def _email_spelled_zh() -> list[str]:
    ats = ["艾特", " 艾特 ", "圈a", "小老鼠", "at", " at ", "@", "＠", "（at）", "【at】"]
    dots = ["点", " 点 ", "點", "。", "．", "点", "点", "。", "點", " 点 "]
    out = []
    for i, (a, d) in enumerate(zip(ats * 3, dots * 3, strict=True)):
        out.append(f"zqzhou{i:02d}{a}{'qq' if i % 2 else '163'}{d}com")
    out += [f"zqzhang{i}＃qq.com" for i in range(3)] + ["zqfw" + _fw("88@qq.com"), _fw("zqfwall@163.com")]
    return out


def _email_obfuscated() -> list[str]:
    return [
        "zqob1 @ gmail.com",
        "zqob2@ gmail.com",
        "zqob3 @gmail.com",
        "zqob4@gmail .com",
        "zqob5@gmail. com",
        "zqob6@gmail。com",
        "zqob7@gmail．com",
        ZW.join("zqob8@gmail.com"),
        "zqob9" + NBSP + "@" + NBSP + "gmail.com",
        "zqob10@g mail.com".replace(" ", ""),
        "zqob11 @ outlook . com",
        "zqob12＠ｏｕｔｌｏｏｋ．ｃｏｍ",
    ]


def _phones_zh_numerals() -> list[str]:
    m = _mobiles(30, 1)
    out = [_zh(x) for x in m[:8]] + [_zh(x, one="幺") for x in m[8:14]] + [_zh(x, _ZH_CAP, "壹") for x in m[14:18]]
    out += [" ".join((_zh(x[:3]), _zh(x[3:7]), _zh(x[7:]))) for x in m[18:22]]
    out += [x[:3] + _zh(x[3:]) for x in m[22:26]] + [_zh(x[:7]) + x[7:] for x in m[26:30]]
    return out


def _phones_en_words() -> list[str]:
    m = _mobiles(20, 2)
    out = [_words(x) for x in m[:6]] + [_words(x, "oh") for x in m[6:10]] + [_words(x, sep="-") for x in m[10:12]]
    out += [_words(x, sep=", ") for x in m[12:14]] + [_words(x).upper() for x in m[14:16]]
    out += [_words(x).title() for x in m[16:18]]
    out += ["four one five five five five oh one three two", "plus eight six " + _words(m[18]), _words(m[19], "o")]
    return out


def _ids_numerals() -> list[str]:
    ids = _ids18(24)
    out = [_zh(x) for x in ids[:6]] + [_words(x) for x in ids[6:9]] + [_zh(x, _ZH_CAP, "壹") for x in ids[9:12]]
    out += [" ".join((x[:6], x[6:14], x[14:])) for x in ids[12:16]] + [_fw(x) for x in ids[16:19]]
    out += [x[:6] + "-" + x[6:] for x in ids[19:24]]
    return out


def _ids15() -> list[str]:
    bodies = ["330106910422", "110105490131", "440305850713", "310104770228", "510107690915"]
    out = [b + f"{i:03d}"[-3:] for i, b in enumerate(bodies * 3, 101)]
    return [out[i] if i % 3 else out[i][:6] + " " + out[i][6:12] + " " + out[i][12:] for i in range(15)]


def _phones_india() -> list[str]:
    nums = ["9876543210", "9123456789", "8123456780", "7012345678", "6354123987", "9988776655", "9811122233"]
    out = [f"{n[:5]} {n[5:]}" for n in nums] + [f"+91 {n[:5]} {n[5:]}" for n in nums[:5]]
    out += [f"+91-{n[:5]}-{n[5:]}" for n in nums[5:]] + [f"0{n[:5]} {n[5:]}" for n in nums[:3]]
    out += [f"91 {n[:5]} {n[5:]}" for n in nums[3:6]]
    return out


def _cards_prefixes() -> list[str]:
    specs = [
        ("62", 16),
        ("62", 19),
        ("6212", 19),
        ("2200", 16),
        ("2204", 16),
        ("35", 16),
        ("3528", 16),
        ("36", 14),
        ("300", 14),
        ("6011", 16),
        ("65", 16),
        ("644", 16),
        ("508", 16),
        ("60", 16),
        ("81", 16),
        ("82", 16),
        ("5018", 16),
        ("5612", 16),
        ("6759", 16),
        ("9792", 16),
        ("1", 15),
        ("4", 13),
        ("2221", 16),
        ("2720", 16),
        ("4011", 16),
        ("5067", 16),
        ("8600", 16),
        ("9860", 16),
    ]
    out = []
    for i, (p, n) in enumerate(specs):
        v = _luhn_complete(p, n)
        out.append(" ".join(v[j : j + 4] for j in range(0, n, 4)) if i % 2 else v)
    return out


def _ssns() -> list[str]:
    core = ["536-22-8841", "123-45-6789", "212-09-9999", "401-33-1234", "772-10-4321", "219-09-9998"]
    out = core + [c.replace("-", " ") for c in core[:4]] + [c.replace("-", "") for c in core[:4]]
    out += [c.replace("-", ".") for c in core[:3]] + [_fw(c) for c in core[:3]]
    return out


def _passports() -> list[str]:
    return [
        "E12345678",
        "G87654321",
        "EA1234567",
        "E 1234 5678",
        "P1234567",
        "K12345678",
        "X98765432",
        "123456789",
        "583920174",  # not 987654321: a descending run is also LanceDB's token alphabet ("…9876543210")
        "AB1234567",
        "C01X00T47",
        "L898902C3",
        "E9876543",
        "S12345678",
        "D12345678",
        "H12345678",
        "GB1234567",
        "M12345678",
        "J8374651",
        "E2468013",
    ]


def _ips() -> list[str]:
    return [
        "192.168.31.7",
        "10.24.3.117",
        "172.16.254.1",
        "203.0.113.45",
        "8.8.4.4",
        "114.114.115.115",
        "1.2.3.4",
        "2001:db8::8a2e:370:7334",
        "2001:0db8:85a3:0000:0000:8a2e:0370:7334",
        "fe80::1ff:fe23:4567:890a",
        "::ffff:192.0.2.128",
        "192.168.1.254:8080",
        "100.64.12.9",
        "36.110.22.8",
        _fw("192.168.31.8"),
        "192 . 168 . 31 . 9",
        "192 dot 168 dot 31 dot 10",
        "192点168点31点11",
        "192。168。31。12",
        "10.0.0.13",
        "2408:8207:2463:1f0::2a",
        "240e:3a1:4c0:6a::1",
        "127.0.0.1",
        "192.168.0.1/24",
        "fd12:3456:789a:1::1",
    ]


def _mixed_spaced() -> list[str]:
    m = _mobiles(15, 3)
    out = [" ".join(x) for x in m[:3]] + ["  ".join(x) for x in m[3:5]] + [_fw(" ".join(x)) for x in m[5:7]]
    out += ["-".join(x) for x in m[7:9]] + [".".join(x) for x in m[9:11]] + [IDSP.join(x) for x in m[11:13]]
    out += [x[:3] + " " + _zh(x[3:7]) + " " + x[7:] for x in m[13:15]]
    return out


#: category → (spellings, a template in English, a template in Chinese, the door's hint word if any)
CATEGORY_SPELLINGS = {
    "email-spelled-en": _email_spelled_en,
    "email-spelled-zh": _email_spelled_zh,
    "email-obfuscated": _email_obfuscated,
    "phone-zh-numerals": _phones_zh_numerals,
    "phone-en-words": _phones_en_words,
    "phone-spaced-mixed": _mixed_spaced,
    "id-numerals-grouped": _ids_numerals,
    "id-15-digit": _ids15,
    "phone-india": _phones_india,
    "bank-card-prefixes": _cards_prefixes,
    "ssn": _ssns,
    "passport": _passports,
    "ip-address": _ips,
}
_CONTEXT = {
    "email": ("write to {} please", "我的邮箱是 {} 。"),
    "phone": ("call me on {} tomorrow", "我的手机是{}"),
    "id": ("my ID number is {}", "身份证号{}"),
    "bank": ("my card number is {}", "我的银行卡号是{}"),
    "ssn": ("my SSN is {}", "我的社会安全号码 SSN {}"),
    "passport": ("my passport number is {}", "我的护照号码是{}"),
    "ip": ("my home IP is {}", "我家的IP地址是{}"),
}

#: ordinary numbers that must stay as they are (ISBNs, prices, versions, dates, times, quantities, order numbers)
NOT_PII = [
    "ISBN 978-7-111-54742-6",
    "ISBN 0-306-40615-2",
    "ISBN-13: 978-0-306-40615-7",
    "the book 978-1-4028-9462-6 is great",
    "ISBN 7-5600-3357-9",
    "it costs $13,901.44",
    "价格 ¥1,299.00",
    "budget 1,390,144,046 yuan",
    "version 2.13.9014461",
    "v1.2.3.4 is out",
    "upgrade to 10.0.19041.1",
    "python 3.12.1",
    "on 2024-05-17 at 13:45",
    "from 2023/01/02 to 2023/12/31",
    "I ran 10 km in 52 minutes",
    "room 1204, floor 12",
    "order #139014404 shipped",
    "tracking 1Z999AA10123456784",
    "我在2024年5月17日下午3点到",
    "一百二十三个人",
    "第三十五届",
    "I met him at school",
    "see you at the station dot",
    "she is at home",
    "meet at 5",
    "chapter 12.3.4 of the manual",
    "pi is 3.14159265358",
    "the score was 21-19, 21-17",
    "ticket 2024051712345",
    "model ABC-12345678",
]


def spellings_by_category() -> dict[str, list[tuple[str, str]]]:
    """{category: [(text, secret)]}: each spelling in an English and a Chinese sentence (alternating)."""
    out: dict[str, list[tuple[str, str]]] = {}
    for category, make in CATEGORY_SPELLINGS.items():
        en, zh = _CONTEXT[category.split("-")[0]]
        out[category] = [((zh if i % 2 else en).format(s), s) for i, s in enumerate(make())]
    return out


# -- issue #45: spellings still stored raw after #30, and their families (written before the masker was changed) ---
KEYCAP = "\ufe0f\u20e3"  # "1️⃣" = the digit, the emoji presentation selector, the combining keycap


def _keycap(digits: str, fe0f: bool = True) -> str:
    return "".join(d + (KEYCAP if fe0f else "\u20e3") if d.isdigit() else d for d in digits)


def _entities(text: str, style: str = "dec") -> str:
    """Every character of ``text`` as an HTML character reference (decimal, hex, or the named ones)."""
    named = {"@": "&commat;", ".": "&period;", "-": "&hyphen;", "_": "&lowbar;", "+": "&plus;"}
    if style == "named":
        return "".join(named.get(c, c) for c in text)
    return "".join(f"&#{ord(c)};" if style == "dec" else f"&#x{ord(c):x};" for c in text)


def _email_encoded() -> list[str]:
    return [
        "zqhtml1&#64;example.com",
        "zqhtml2&#x40;example.com",
        "zqhtml3&#X40;gmail.com",
        "zqhtml4&commat;example&period;com",
        "zqhtml5&#64;example&#46;org",
        _entities("zqhtml6@example.com"),
        _entities("zqhtml7@example.com", "hex"),
        "zqhtml8&amp;#64;example.com",  # encoded twice
        "zqhtml9&#064;163.com",
        "zqurl1%40example.com",
        "mailto:zqurl2%40example.com",
        "zqurl3%40example%2Ecom",
        "zqurl4%2540example.com",  # encoded twice
        "zq%2Eurl5%40gmail%2ecom",
        "%7Aqurl6%40qq.com",
        "zqurl7%40mail.example.co.uk",
    ]


def _email_words_joined() -> list[str]:
    return [
        "zqjoin1_at_example_dot_com",
        "zqjoin2_at_gmail_dot_com",
        "zq.join3_at_mail_dot_example_dot_org",
        "zqjoin4-at-example-dot-com",
        "zqjoin5_AT_example_DOT_com",
        "zqjoin6 _at_ example _dot_ com",
        "zqjoin7.at.example.dot.com",
        "zqjoin8(a)example.com",
        "zqjoin9 (a) example.com",
        "zqjoin10(a)example(dot)com",
        "zqjoin11[a]gmail.com",
        "zqjoin12 [a] gmail [dot] com",
        "zqjoin13（a）qq.com",
        "zqjoin14(a)163点com",
        "zqjoinfifteen(a)example.com",
        "zqjoinsixteen [a] gmail.com",
    ]


def _digits_keycap() -> list[str]:
    m = _mobiles(8, 7)
    out = [_keycap(x) for x in m[:4]] + [_keycap(x, fe0f=False) for x in m[4:6]]
    out += [" ".join((_keycap(x[:3]), _keycap(x[3:7]), _keycap(x[7:]))) for x in m[6:8]]
    out += [_keycap("536-22-8841"), _keycap("4242 4242 4242 4242"), _keycap("330106199104223104")]
    out += [_keycap("415 555 0132")]
    return out


def _ssn_spaced_cjk() -> list[str]:
    return [
        "536 - 22 - 8841",
        "123  45  6789",
        "212 09 9999".replace(" ", "\u3000"),
        "401 - 33 - 1234",
        "社保号536-22-8841",
        "我的SSN是123-45-6789",
        "号码212-09-9999。",
        "社会安全号码：401 33 1234",
        "SSN：772-10-4321",
        "我的SSN是219099998",
        "SSN号码536228841",
    ]


def _passport_mrz() -> list[str]:
    return [
        "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
        "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
        "E123456784CHN9104223F3001015NGKELNPMNDPMA946",
        "G876543217CHN8501011M2801012<<<<<<<<<<<<<<04",
        "5839201747USA8806078M3011303<<<<<<<<<<<<<<02",
        "P<CHNZHANG<<WEI<<<<<<<<<<<<<<<<<<<<<<<<<<<<<",
        "C01X00T478D<<6408125F2702283<<<<<<<<<<<<<<<4",
        "L898902C3 6 UTO 740812 2 F 120415 9 ZE184226B<<<<<1 0",
    ]


def _iban_lower_spaced() -> list[str]:
    return [
        "gb82 west 1234 5698 7654 32",
        "de89 3704 0044 0532 0130 00",
        "fr14 2004 1010 0505 0001 3m02 606",
        "gb82west12345698765432",
        "Gb82 West 1234 5698 7654 32",
        "nl91 abna 0417 1643 00",
        "es91 2100 0418 4502 0005 1332",
        "it60 x054 2811 1010 0000 0123 456",
        "ch93 0076 2011 6238 5295 7",
        "GB82-WEST-1234-5698-7654-32",
        "de89 3704 0044 0532 0130 00".replace(" ", "\u00a0"),
        "be71 0961 2345 6769",
    ]


CATEGORY_SPELLINGS_45 = {
    "email-encoded": _email_encoded,
    "email-words-joined": _email_words_joined,
    "digits-keycap": _digits_keycap,
    "ssn-spaced-cjk": _ssn_spaced_cjk,
    "passport-mrz": _passport_mrz,
    "iban-lower-spaced": _iban_lower_spaced,
}
_CONTEXT_45 = {
    "email": ("write to {} please", "我的邮箱是 {} 。"),
    "digits": ("my number is {}", "我的号码是{}"),
    "ssn": ("my SSN is {}", "{}"),
    "passport": ("the scan of my passport reads {}", "护照机读区：{}"),
    "iban": ("my IBAN is {}", "我的账户 {}"),
}

#: ordinary text near these spellings that must stay as it is (entities, URL escapes and keycaps that are not PII)
NOT_PII_45 = [
    "Tom &amp; Jerry, 5 &lt; 6",
    "50%25 off, 100%20 sure",
    "the file is named report_at_noon_dot_txt",
    "meet at_home_dot",
    "1️⃣ first, 2️⃣ second, 3️⃣ third",
    "room 12 (a) and 12 (b)",
    "P<< not a passport line",
    "the word iban alone, and de facto",
]


def spellings_45() -> dict[str, list[tuple[str, str]]]:
    """{category: [(text, secret)]} of :data:`CATEGORY_SPELLINGS_45`, each spelling in an English and a Chinese
    sentence (alternating)."""
    out: dict[str, list[tuple[str, str]]] = {}
    for category, make in CATEGORY_SPELLINGS_45.items():
        en, zh = _CONTEXT_45[category.split("-")[0]]
        out[category] = [((zh if i % 2 else en).format(s), s) for i, s in enumerate(make())]
    return out
