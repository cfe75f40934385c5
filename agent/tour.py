"""The Demo tour's script and its actions (the back office's "Demo tour" page walks a presenter through them).

The story runs on a demo user `memlens seed-demo` made — alice in English, 王芳 in Chinese — over their past sessions:
a new session that remembers, what was recalled and why, a person's correction the agent then follows, a memory
forgotten on the user's request, and what a stricter or looser threshold gains and loses. Every action goes through
the service and the agent, like any other page's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from memory.vocab import Actor, MemoryStatus

if TYPE_CHECKING:
    from memory.retrieval.recall import RecallResult
    from memory.service import MemoryService


@dataclass(frozen=True)
class Tour:
    user_id: str
    ask_first: str  # answered from what was said in earlier sessions
    correct_field: str
    correct_value: str
    ask_where: str  # answered from the correction
    forget_request: str
    forget_word: str  # every active memory stating it is forgotten
    ask_forgotten: str
    words: dict[str, Any] = field(default_factory=dict)

    def session_id(self) -> str:
        return "tour-" + datetime.now(UTC).strftime("%Y%m%d-%H%M%S")


_EN: dict[str, Any] = {
    "title": "Demo tour",
    "intro": "A five-minute walk through what MemLens does, on Alice's real history (three sessions over the last "
    "twelve days). Each button does the real thing: the agent answers, a person corrects, a memory is forgotten.",
    "not_seeded": "The demo users are not here yet. Run `memlens seed-demo` in a terminal, then reload this page.",
    "read_only": "Read-only: walking the tour changes the demo's data, which needs the curator role.",
    "user_says": "Alice:",
    "agent_says": "Agent:",
    "carried": "Carried over from her last session:",
    "remember_title": "It remembers across sessions",
    "remember_text": "Alice opens a new session today and asks for a restaurant. She never repeats that she is "
    "vegetarian: she said it twelve days ago, in another session.",
    "remember_button": "Start a new session and ask",
    "remember_after": "The answer comes from earlier sessions, with the day each thing was said.",
    "why_title": "What it recalled, and why",
    "why_text": "Every prompt carries her profile. Below it, every memory the search found, with the relevance the "
    "search computed (the estimated chance that it helps with this question): only those above the threshold "
    "reach the prompt.",
    "from_profile": "From her profile (in every prompt): {lines}",
    "recalled_used": "{count} reached the prompt at the threshold {threshold}.",
    "recalled_none": "No recalled memory reached the prompt: none passed the threshold {threshold}, so the answer "
    "came from her profile.",
    "recalled_none_no_profile": "No recalled memory reached the prompt: none passed the threshold {threshold}.",
    "relevance": "relevance",
    "no_relevance": "— (found by its words only)",
    "used": "used in the answer",
    "passed": "above the threshold, not needed",
    "below": "below the threshold, left out",
    "why_left": {
        "beyond top-k": "above the threshold, beyond the number of memories a prompt takes",
        "in the recent conversation": "above the threshold, already in the conversation",
        "same message as": "above the threshold, says what a better one said",
        "flagged": "flagged as wrong by a person, left out",
        "below similarity floor": "below the similarity floor, left out",
        "below relative cut": "too far below the best match, left out",
        "budget": "above the threshold, no room left in the prompt",
        "contradicts profile": "above the threshold, contradicts the profile",
        "states a retracted memory": "states something a person corrected, left out",
    },
    "said": "said",
    "no_hits": "No stored memory matched this question.",
    "why_after": "Threshold now: {threshold}. The Chat page shows the same for every turn.",
    "correct_title": "A person corrects a memory",
    "correct_text": "Alice phoned support: she moved again, to Porto. A curator corrects the profile; the memory "
    "that said Lisbon is superseded, with the curator's name and reason.",
    "correct_button": "Correct: she lives in Porto",
    "correct_reason": "Demo tour: the user phoned to say she moved to Porto",
    "correct_after": "{field}: {old} → {new}, logged in the change log with your name.",
    "follow_title": "The agent follows the correction",
    "follow_text": "Alice asks where she lives. The agent answers from the corrected profile and says who "
    "corrected it.",
    "follow_button": "Ask where she lives",
    "follow_after": "The agent uses the correction at once: no restart, no retraining.",
    "follow_missed": "The reply does not show the correction yet.",
    "forget_title": "It forgets on request",
    "forget_text": "Alice asks the agent to forget her Japan trip. Every memory that states it is deleted (restorable "
    "by a curator until purged), and the agent no longer uses it.",
    "forget_button": "Forget the Japan trip",
    "forget_reason": "Demo tour: the user asked to forget her Japan trip",
    "forget_count": "Forgotten: {count}.",
    "forget_after": "The trip is gone from the answer.",
    "forget_missed": "The answer still mentions the trip.",
    "threshold_title": "What the threshold gains and loses",
    "threshold_text": "The same first question, searched again now (after the correction and the forgetting) in this "
    "session, at the live threshold and at a looser and a stricter one: which memories would reach the prompt, and "
    "which would be left out. What this session said is the conversation, not a memory to recall.",
    "now_at": "At the live threshold ({threshold}) the prompt gets:",
    "now_none": "At the live threshold ({threshold}) no memory reaches the prompt.",
    "threshold_button": "Compare thresholds",
    "looser": "Looser threshold ({threshold})",
    "stricter": "Stricter threshold ({threshold})",
    "gains": "gains",
    "loses": "loses",
    "same": "Nothing changes for this question.",
    "threshold_after": "Developers tune this live in the Retrieval lab and apply it to the agent from the sidebar.",
    "end_title": "That's the story",
    "end_text": "Remembered across sessions, explained, corrected, obeyed, forgotten on request, and tuned in the "
    "open. The Profile, Memories and Sessions pages show everything this tour just did.",
    "restart": "Walk it again",
}

_ZH: dict[str, Any] = {
    "title": "演示导览",
    "intro": "用五分钟看看 MemLens 能做什么，用的是王芳真实的对话记录（过去十二天里的三次会话）。每个按钮都会真正执行："
    "助手回答、工作人员更正、记忆被遗忘。",
    "not_seeded": "还没有演示用户。请先在终端运行 `memlens seed-demo`，然后刷新本页。",
    "read_only": "只读：导览会修改演示数据，需要 curator 角色。",
    "user_says": "王芳：",
    "agent_says": "助手：",
    "carried": "上次会话带过来的内容：",
    "remember_title": "跨会话记忆",
    "remember_text": "王芳今天开始一次新的会话，想请朋友吃饭。她没有再说自己不吃辣：那是十二天前在另一次会话里说的。",
    "remember_button": "开始新会话并提问",
    "remember_after": "回答来自以前的会话，并说明每件事是哪天说的。",
    "why_title": "想起了什么，为什么",
    "why_text": "每次的提示词都带着她的档案。下面是检索找到的每条记忆和检索算出的相关度（对这个问题有帮助的估计概率）："
    "只有高于阈值的记忆才会进入提示词。",
    "from_profile": "来自她的档案（每次都在提示词里）：{lines}",
    "recalled_used": "在阈值 {threshold} 下，有 {count} 进入了提示词。",
    "recalled_none": "没有检索到的记忆进入提示词：没有一条高于阈值 {threshold}，所以回答来自她的档案。",
    "recalled_none_no_profile": "没有检索到的记忆进入提示词：没有一条高于阈值 {threshold}。",
    "relevance": "相关度",
    "no_relevance": "—（只按字词找到）",
    "used": "用在了回答里",
    "passed": "高于阈值，但没有用到",
    "below": "低于阈值，没有使用",
    "why_left": {
        "beyond top-k": "高于阈值，但超出了提示词能带的条数",
        "in the recent conversation": "高于阈值，已经在对话里",
        "same message as": "高于阈值，和排在前面的一条说的是同一件事",
        "flagged": "被工作人员标记为错误，没有使用",
        "below similarity floor": "低于相似度下限，没有使用",
        "below relative cut": "离最佳匹配太远，没有使用",
        "budget": "高于阈值，但提示词没有空间了",
        "contradicts profile": "高于阈值，但和档案矛盾",
        "states a retracted memory": "说的是已被更正的内容，没有使用",
    },
    "said": "说于",
    "no_hits": "没有匹配这个问题的记忆。",
    "why_after": "当前阈值：{threshold}。对话页对每一轮都显示同样的信息。",
    "correct_title": "工作人员更正记忆",
    "correct_text": "王芳打电话说她又搬家了，搬到了苏州。"
    "工作人员更正档案；说她住在上海的那条记忆被取代，并记录更正人和原因。",
    "correct_button": "更正：她住在苏州",
    "correct_reason": "演示导览：用户来电说她搬到了苏州",
    "correct_after": "{field}：{old} → {new}，已记入变更记录，署名是你。",
    "follow_title": "助手遵循更正",
    "follow_text": "王芳问自己住在哪里。助手根据更正后的档案回答，并说明是谁更正的。",
    "follow_button": "问她住在哪里",
    "follow_after": "更正立即生效：不用重启，也不用重新训练。",
    "follow_missed": "回答里还没有体现更正。",
    "forget_title": "按要求遗忘",
    "forget_text": "王芳请助手忘掉她的成都之行。"
    "说到它的每条记忆都会被删除（清除之前工作人员可以恢复），助手不再使用它。",
    "forget_button": "忘掉成都之行",
    "forget_reason": "演示导览：用户要求忘掉她的成都之行",
    "forget_count": "已遗忘：{count}。",
    "forget_after": "回答里不再有这次旅行。",
    "forget_missed": "回答里仍然提到这次旅行。",
    "threshold_title": "阈值的得与失",
    "threshold_text": "在这次会话里（更正和遗忘之后）用当前阈值、更宽松和更严格的阈值重新检索第一个问题："
    "哪些记忆会进入提示词，哪些会被排除。这次会话说过的话是对话本身，不是要检索的记忆。",
    "now_at": "在当前阈值（{threshold}）下，提示词会带上：",
    "now_none": "在当前阈值（{threshold}）下，没有记忆进入提示词。",
    "threshold_button": "比较阈值",
    "looser": "更宽松的阈值（{threshold}）",
    "stricter": "更严格的阈值（{threshold}）",
    "gains": "多了",
    "loses": "少了",
    "same": "这个问题没有变化。",
    "threshold_after": "开发者在检索实验室里实时调整阈值，并在侧栏应用到助手。",
    "end_title": "故事讲完了",
    "end_text": "跨会话记住、说明原因、接受更正、遵循更正、按要求遗忘、公开调参。"
    "档案、记忆和会话页面会显示这次导览做的每件事。",
    "restart": "再走一遍",
}

TOURS = {
    "en": Tour(
        user_id="alice",
        ask_first="Can you recommend a restaurant for Friday dinner?",
        correct_field="city",
        correct_value="Porto",
        ask_where="Where do I live now?",
        forget_request="Please forget my trip to Japan.",
        forget_word="Japan",
        ask_forgotten="What do you remember about my trip?",
        words=_EN,
    ),
    "zh": Tour(
        user_id="王芳",
        ask_first="周五晚上想请朋友吃饭，有什么推荐？",
        correct_field="city",
        correct_value="苏州",
        ask_where="我现在住在哪里？",
        forget_request="请忘掉我的成都之行。",
        forget_word="成都",
        ask_forgotten="你还记得我的旅行计划吗？",
        words=_ZH,
    ),
}


def hits_of(result: RecallResult | None) -> list[dict[str, Any]]:
    """A turn's recalled memories as plain values, in recall's order: what the tour shows under "what it recalled".
    ``relevance`` is the one recall computed (None when it computed none: a hit found by its words only), and
    ``why`` the reason recall (or the prompt) left it out, None when it reached the prompt."""
    if result is None:
        return []
    out = []
    for h in result.hits:
        injected = bool(h.injected if h.injected is not None else h.selected)
        out.append(
            {
                "content": h.content,
                "relevance": h.relevance,
                "passed": h.passed,
                "injected": injected,
                "why": None if injected else (h.drop_reason or "below threshold"),
                "created_at": h.created_at,
            }
        )
    return out


def fmt_relevance(value: float | None) -> str | None:
    """A relevance or a threshold as the tour writes both (the same precision, so "below" reads as below)."""
    return None if value is None else f"{value:.3f}"


def profile_used(profile: dict[str, Any], reply: str, lang: str) -> list[str]:
    """The profile's fields the reply states, each as the sentence the offline engine says it in (or, for a model's
    own wording, a field whose every value the reply names): what step 2 shows the answer came from."""
    from memory.text.voice import profile_sentence

    said = []
    low = reply.casefold()
    for name, value in profile.items():
        sentence = profile_sentence(name, value, lang)
        items = [str(v) for v in (value if isinstance(value, list) else [value]) if str(v).strip()]
        if sentence and (sentence in reply or (items and all(i.casefold() in low for i in items))):
            said.append(sentence)
    return said


def forget_topic(svc: MemoryService, user_id: str, word: str, *, actor: Actor, reason: str) -> int:
    """Delete every active memory of the user that states ``word`` (facts and the episodes that said it), as a
    curator does on the user's request; returns how many. Deleting an episode takes along what was read only from it
    (the corrections cascade), so each memory is deleted only if it is still active when its turn comes."""
    user = svc.get_user(user_id)
    rows = svc.list_memories(user, statuses=(MemoryStatus.ACTIVE,), limit=5000)
    gone = [m for m in rows if word.casefold() in m.content.casefold()]
    for m in gone:
        if svc.get_memory(m.id).status == MemoryStatus.ACTIVE:  # an episode's delete takes what was read only from it
            svc.delete_memory(m.id, actor=actor, reason=reason)
    return len(gone)


def threshold_story(svc: MemoryService, user_id: str, query: str, session_id: str | None = None) -> dict[str, Any]:
    """``query`` searched now at the live threshold, a looser one (half) and a stricter one (halfway to 1): what the
    prompt would get at the live one, the memories the looser one would add and the stricter one take out (nothing
    is logged or changed). Asked in the tour's ``session_id``, as the agent asks: what that session said is the
    conversation (its episodes are never selected), so the question just asked is not a memory gained or lost."""
    from memory.retrieval.filters import RecallFilters

    filters = None
    if session_id is not None:
        user = svc.get_user(user_id)
        session = svc.find_session(user, session_id, svc.settings.default_agent_id)
        if session is not None:
            filters = RecallFilters.build(shown_messages=[m.id for m in svc.messages(session.id) if m.id is not None])
    current = svc.recall(user_id, query, log=False, filters=filters)
    threshold = current.params.threshold
    now = {h.content: h.memory_id for h in current.selected}  # by what it says: one line per statement
    out: dict[str, Any] = {"threshold": threshold, "now": list(now)}
    for key, value in (("looser", threshold / 2), ("stricter", threshold + (1 - threshold) / 2)):
        hits = svc.recall(user_id, query, log=False, threshold=value, filters=filters).selected
        other = {h.content: h.memory_id for h in hits}
        out[key] = {
            "threshold": value,
            "gained": [c for c in other if c not in now],
            "lost": [c for c in now if c not in other],
        }
    return out
