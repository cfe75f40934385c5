"""Offline rule-based extraction for Chinese user statements (same predicates and shape as rules_en).

Chinese has no spaces, so objects end at punctuation or a conjunction, and objects that look like a pronoun or a
demonstrative ("你", "这个") are refused. ``我`` may be left out after the first clause of a message ("我住在杭州，
喜欢吃辣"), so rules accept a clause that starts with the verb when the message mentions 我.
"""

from __future__ import annotations

import re

from memory.text.numerals import amount_key
from memory.write.extract.base import CN_CITIES
from memory.write.extract.rules_en import Rule, _r

_STOPS = r"[，。！？；、,.!?;~～]"
_ZEND = r"(?=" + _STOPS + r"|$|但|不过|而且|并且|因为|所以|还有|然后)"
_ZOBJ = r"(?P<obj>[^，。！？；、,.!?;~～]{1,20}?)" + _ZEND
_I = r"(?:我|^|(?<=[，,]))"
_CITY = (
    r"(?P<obj>"
    + "|".join(sorted(CN_CITIES, key=len, reverse=True))
    + r"|[\u4e00-\u9fff]{2,3}(?=市|了|"
    + _STOPS
    + r"|$))市?"
)  # noqa: E501 (pattern table)
_NAME = (
    r"(?P<obj>(?![了过着去来做帮吃买拿给别不什])[\u4e00-\u9fff]{1,4}?|[A-Za-z][A-Za-z'-]{0,20})(?="
    + _STOPS
    + r"|$|\s|吧|就行|就好|好了)"
)  # noqa: E501 (pattern table)
_AMOUNT = (
    r"(?P<obj>(?:\d[\d,]*(?:\.\d+)?\s?[万千kK亿]?|[零〇一二两三四五六七八九十百千万亿]{1,12})\s?"
    r"(?:元|块钱|块|人民币|美元|美金|刀|欧元|英镑|日元)?)"
)
OCC_ZH = (
    "软件工程师|前端工程师|后端工程师|算法工程师|测试工程师|数据分析师|产品经理|项目经理|自由职业者|创业者|程序员|工程师|设计师|"
    "大学生|研究生|博士生|学生|老师|教师|教授|医生|护士|牙医|兽医|律师|会计师|会计|经理|销售|厨师|作家|记者|编辑|摄影师|"
    "演员|歌手|司机|警察|公务员|研究员|科学家|分析师|翻译|咨询师|建筑师|药剂师|运营|全职妈妈|老板"
)
RULES: list[Rule] = [
    # attributes ("我最喜欢的颜色是蓝色" is a fact about a colour, not a new interest)
    _r("attribute", r"我(?P<cat>最喜欢的[\u4e00-\u9fff]{1,6}?)是" + _ZOBJ, "用户{cat}是{obj}。"),
    _r("attribute", r"我的(?P<cat>生日|血型|星座|鞋码|身高|幸运数字|小名|昵称)是" + _ZOBJ, "用户的{cat}是{obj}。"),
    # names
    _r("name", r"我的名字(?:是|叫)" + _NAME, "用户叫{obj}。"),
    _r(
        "preferred_name",
        r"(?<![他她它谁妈爸])(?:你可以|可以|请|就|以后)?(?:叫我|称呼我|喊我)" + _NAME,
        "用户希望被称呼为{obj}。",
    ),  # noqa: E501 (pattern table)
    _r("name", r"(?<![他她])我叫" + _NAME, "用户叫{obj}。"),
    # places
    _r("lives_in", r"我(?:已经|也)?(?:不再|不)住在" + _CITY + r"了?", "用户不再住在{obj}。", negated=True),
    _r(
        "lives_in",
        _I + r"(?:已经|刚|刚刚|最近|上个月|去年|前段时间|终于)?搬(?:到|去|回)了?" + _CITY,
        "用户搬到了{obj}，现在住在那里。",
    ),
    _r("lives_in", _I + r"(?:现在|目前|一直|还)?(?:住在|定居在|生活在|常住在?)" + _CITY, "用户住在{obj}。"),
    _r("lives_in", r"我(?:现在|目前)?在" + _CITY + r"(?:生活|定居|住)", "用户住在{obj}。"),
    _r("hometown", r"我(?:是|来自)" + _CITY + r"人", "用户老家是{obj}。"),
    _r("hometown", r"我(?:的)?老家(?:是|在)" + _CITY, "用户老家是{obj}。"),
    # work
    _r(
        "occupation",
        r"我(?:已经)?不(?:再)?是(?:一名|一个|一位|个)?(?P<obj>" + OCC_ZH + r")了?",
        "用户不再是{obj}。",
        negated=True,
    ),
    _r(
        "occupation",
        _I + r"(?:现在|目前)?是(?:一名|一个|一位|个|名)?(?P<obj>(?:[\u4e00-\u9fff]{0,4}?)(?:" + OCC_ZH + r"))",
        "用户的职业是{obj}。",
    ),
    _r("occupation", r"我的(?:工作|职业)是" + _ZOBJ, "用户的职业是{obj}。"),
    _r("occupation", r"我是做(?P<obj>[\u4e00-\u9fffA-Za-z]{1,8})的", "用户的职业是做{obj}的。"),
    _r("works_in", r"我(?:现在|目前)?在" + _CITY + r"(?:工作|上班)", "用户在{obj}工作。"),
    _r("works_at", r"我(?:现在|目前)?在(?P<obj>[\u4e00-\u9fffA-Za-z0-9]{2,12}?)(?:工作|上班)", "用户在{obj}工作。"),
    # budget
    _r(
        "budget",
        r"预算(?:是|在|大概|大约|有|为|差不多|只有|不超过|控制在|最多|\s)*" + _AMOUNT,
        "用户的预算是{obj}。",
        obj=amount_key,
    ),  # noqa: E501 (pattern table)
    _r("budget", r"我最多(?:能|可以)?(?:花|出)" + _AMOUNT, "用户的预算是{obj}。", obj=amount_key),
    # language
    _r(
        "language",
        r"(?:请|麻烦|以后|尽量)?(?:用|说)(?P<obj>中文|英文|英语|日语|汉语|普通话|粤语|韩语)(?:回答|回复|交流|和我聊|跟我说|"  # noqa: E501 (pattern table)
        r"跟我聊|和我说)",
        "用户希望用{obj}交流。",
        obj=lambda o: "Chinese" if o in ("中文", "汉语", "普通话") else "English" if o in ("英文", "英语") else o,
    ),
    # diet
    _r("diet", r"我(?:已经)?不(?:再)?吃素了", "用户不再吃素。", negated=True, obj=lambda _: "vegetarian"),
    _r(
        "diet", r"我(?:是|一直|现在|开始)?(?:吃素|素食(?:者|主义者)?)(?!的人)", "用户吃素。", obj=lambda _: "vegetarian"
    ),  # noqa: E501 (pattern table)
    _r("diet", _I + r"(?:从来?不|不能|不再|基本不|一般不|完全不|绝对不|不)吃" + _ZOBJ, "用户不吃{obj}。"),
    _r("diet", r"我对" + _ZOBJ.replace("{1,20}?", "{1,12}?").replace(_ZEND, "") + r"过敏", "用户对{obj}过敏。"),
    _r("diet", r"我(?P<obj>海鲜|花生|牛奶|乳糖|鸡蛋|芒果|坚果|麸质)过敏", "用户对{obj}过敏。"),
    # likes / dislikes
    _r("likes", r"我(?:已经)?不(?:再)?喜欢" + _ZOBJ + r"了", "用户不再喜欢{obj}。", negated=True),
    _r("likes", r"我不再(?:喜欢|爱)" + _ZOBJ, "用户不再喜欢{obj}。", negated=True),
    _r(
        "dislikes",
        _I
        + r"(?:很|非常|特别|最|真的|也|一点都|一点也|实在)?(?:不太喜欢|不喜欢|讨厌|受不了|不爱|反感|讨厌吃|怕)"  # noqa: E501 (pattern table)
        + _ZOBJ,
        "用户不喜欢{obj}。",
    ),
    _r("prefers", r"我(?:更|比较)(?:喜欢|偏好|倾向于|想要)" + _ZOBJ, "用户更喜欢{obj}。"),
    _r(
        "likes",
        _I
        + r"(?:也许|可能|应该)?(?:很|非常|特别|超|超级|也|真的|最|一直|挺)?(?:喜欢|热爱|爱|迷上了|钟爱|爱好是)"
        + _ZOBJ,
        "用户喜欢{obj}。",
    ),  # noqa: E501 (pattern table)
    # family, pets
    _r(
        "pet",
        r"我(?:养了|有)(?:一|两|三|几)?(?:只|条|个)(?P<obj>[\u4e00-\u9fff]{0,4}?(?:狗|猫|兔子|鹦鹉|仓鼠|鱼|狗狗|猫咪)(?:，(?:它|他|她)?(?:叫做|名叫|叫|名字叫|名字是)[\u4e00-\u9fffA-Za-z]{1,8})?)",  # noqa: E501 (pattern table)
        "用户养了{obj}。",
    ),
    _r("family", r"我(?:有|生了)(?P<obj>(?:一|两|三)个(?:孩子|儿子|女儿|哥哥|姐姐|弟弟|妹妹))", "用户有{obj}。"),
    _r("family", r"我(?:已经)?(?P<obj>结婚|离婚|订婚)了", "用户{obj}了。"),
]

_DATE_WORDS = r"(?:明天|后天|今天|今晚|大后天|这周末|周末|下周[一二三四五六日天]?|下星期[一二三四五六日天]?|下个?月|明年|(?:这|本)?(?:周|星期)[一二三四五六日天]|(?:\d{4}年)?\d{1,2}月\d{1,2}[日号]?|[一二三四五六七八九十]{1,3}月(?:[一二三四五六七八九十]{1,3}[日号])?)"  # noqa: E501 (pattern table)
PLAN = re.compile(
    r"我(?P<pre>[^，。！？；]{0,10}?)(?P<verb>打算|准备|计划|要|会|将|想要|想)(?P<obj>[^，。！？；,.!?;]{2,24})"
)  # noqa: E501 (pattern table)
#: "我下周去北京" (not 去年 / 去世: a time word and a death are not a trip)
PLAN_GO = re.compile(r"我(?P<pre>[^，。！？；]{0,8}?)(?P<obj>去(?!年|世)[^，。！？；,.!?;]{1,16})")
PLAN_HAVE = re.compile(
    r"我(?P<pre>[^，。！？；]{0,10}?)有(?:一)?个(?P<obj>[\u4e00-\u9fff]{0,8}?(?:面试|会议|会|考试|约会|航班|手术|演讲|聚会|婚礼|体检|课|"
    r"比赛|演出|出差))"
)
PLAN_UNDECIDED = re.compile(
    r"我(?:还)?没(?:决定|想好)(?:要不要|是否|去不去)?(?P<obj>去?[^，。！？；,.!?;]{2,16}?)(?=" + _STOPS + r"|$)"
)  # noqa: E501 (pattern table)
PLAN_CANCEL = re.compile(r"我(?:不去|取消了|不打算去)(?P<obj>[^，。！？；,.!?;]{2,16}?)了?(?=" + _STOPS + r"|$)")
DATE_WORDS = re.compile(_DATE_WORDS)

_STYLE = {
    "concise": r"简洁|简短|简单点|简单一点|短一点|直接说结论|说结论|给结论|别太长|不要太长|太长|少废话|精简",
    "detailed": r"详细|具体一点|展开讲|深入|讲细一点",
    "no emoji": r"不要(?:用|加)?表情|别(?:用|加)表情",
    "formal": r"正式",
    "casual": r"随意|轻松一点|口语化",
}
STYLE_ZH = {"concise": "简洁", "detailed": "详细", "no emoji": "不带表情", "formal": "正式", "casual": "轻松随意"}
_STOP_OBJECTS = re.compile(r"^(?:你|您|它|他|她|这|那|这个|那个|这样|那样|这些|那些|什么|怎么|哪)")


def style_of(sentence: str) -> str | None:
    if not re.search(r"回答|回复|答案|解释|说|讲|风格|请|别|不要|希望|喜欢|尽量|一点", sentence):
        return None
    for style, words in _STYLE.items():
        if re.search(words, sentence):
            return style
    return None


def clean_object(obj: str) -> str | None:
    o = obj.strip().strip("“”\"'「」 ")
    o = re.sub(r"(?:了|啦|呀|啊|哦|的|呢|吧)+$", "", o) if len(o) > 1 else o
    if not o or _STOP_OBJECTS.match(o):
        return None
    return o
