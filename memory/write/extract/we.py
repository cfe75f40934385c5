"""Name the people of a "we" from the sentence before it in the same message (issue 44: resolve, not "User and others").

"I had a picnic with my friends from church. We chilled under the trees and played games." — the second sentence
alone gives "User and others chilled under the trees …", and a reader of the memory asks: others, who? (blind
readers flagged a third of the "User and others" memories of the fourteenth round). The speaker named them one
sentence before: "my friends". So: "User and their friends chilled under the trees …".

Named only where one group fits: the message, before the quoted sentence, names the speaker's own people ("my
friends", "our family", "my teammates"), the last such group is the one taken, and no other group is said after it
("My fam's small, but I love spending time with the friends I have. We usually watch movies …": the friends, which
blind readers caught as false); the memory does not speak of that group itself ("User and others were so lucky their
son was okay" after "my son": the "we" are the parents, not the son), and a single person ("my son", "my wife") never
stands for a "we". When the message names no group of the speaker's before the "we", the message it answers may:
"What do you love most about camping with your fam?" → "We bond over stories, campfires and nature." → "User and
their fam bond over …" (one group asked about, "your …"; two, or none, and it stays). Anything else stays "User and
others", which reads as it was said. English only (Chinese "我们" keeps its own rewrite).
"""

from __future__ import annotations

import re

from memory.text.language import has_cjk
from memory.write.extract.antecedent import quoted_at

__all__ = ["we_named"]

#: the nouns of a group a "we" may be: a plural or a collective
_GROUP_NOUN = (
    r"(?:friends|family|fam|kids|children|teammates|team|crew|group|gang|colleagues|coworkers|co-workers|classmates|"
    r"parents|siblings|cousins|neighbors|neighbours|buddies|pals|folks|club|band|squad|volunteers|students|dancers|"
    r"players)"
)
#: the speaker's own group, as said: "my friends", "our family", "my basketball teammates"
_GROUP = re.compile(rf"\b(?:my|our)\s+(?P<group>(?:[a-z-]+\s+)?{_GROUP_NOUN})\b", re.IGNORECASE)
#: the speaker's group as the message they answer asks about it: "you and your family", "with your fam"
_YOUR_GROUP = re.compile(rf"\byour\s+(?P<group>(?:[a-z-]+\s+)?{_GROUP_NOUN})\b", re.IGNORECASE)
#: any group said after the speaker's own, whoever's: a "we" after it may be that group
_ANY_GROUP = re.compile(rf"\b(?P<noun>{_GROUP_NOUN}|people|guys)\b", re.IGNORECASE)
_OTHERS = "User and others"


def we_named(content: str, evidence: str, message: str, previous: str | None = None) -> str:
    """``content`` with "User and others" named by the speaker's group the message names before ``evidence`` or,
    when it names none, the one group of theirs the message it answers (``previous``) asks about; as it is when none
    fits."""
    if _OTHERS not in content or has_cjk(content) or not message:
        return content
    at = quoted_at(evidence, message)
    before = message[:at] if at > 0 else ""
    groups = list(_GROUP.finditer(before))
    if groups:
        group, after = groups[-1].group("group").lower(), before[groups[-1].end() :]
    else:  # "What do you love most about camping with your fam?" → "We bond over stories …"
        asked = {m.group("group").lower() for m in _YOUR_GROUP.finditer(previous or "")}
        if len(asked) != 1 or _ANY_GROUP.search(before):
            return content  # none asked about, several, or the speaker named people of their own first
        group, after = asked.pop(), ""
    noun = group.split()[-1]
    if re.search(rf"\b{re.escape(noun)}\b", content, re.IGNORECASE):
        return content  # the memory speaks of the group itself: the "we" are others
    if any(m.group("noun").lower() != noun for m in _ANY_GROUP.finditer(after)):
        return content  # "My fam's small, but I love … the friends I have. We …": the friends, not the fam
    return content.replace(_OTHERS, f"User and their {group}")
