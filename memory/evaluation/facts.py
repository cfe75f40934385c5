"""LoCoMo's ``observation``s as the extraction benchmark (``memlens eval facts``).

Every LoCoMo session lists, per speaker, gold facts ("Caroline attended an LGBTQ support group recently …") with the
turn(s) each one comes from. Each turn goes through the function a user's chat turn runs (``pipeline.prepare``:
classify, mask, extract; the rules offline, the configured chat model with ``--extractor llm``), as the speaker of
that turn, and its candidates are compared with the observations:

- **recall**: observations with at least one *agreeing* memory extracted from a turn they cite;
- **precision**: memories that agree with an observation (of their speaker) citing their source turn; a memory from a
  turn no observation cites counts against precision (LoCoMo's annotators judged it not worth noting);
- **memories per turn**, and **readability**: no dangling pronoun as object (a memory ending in it / this / that, or
  in them / him / her with nothing else it could stand for: "User likes it.", "User likes them."), no "does <verb>"
  template ("User regularly does the violin"), the speaker resolved (the memory names the user, and no I / my / we /
  you is left outside quotes).

*Agreement* (one definition, both signals): a memory agrees with an observation when they share at least
``MIN_SHARED`` content words (lower case, light stemming, stop words and the speakers' names left out) **and** their
passages are at least ``MIN_COSINE`` apart by the real offline embedder (multilingual-e5-small) — or when the cosine
alone reaches ``STRONG_COSINE``. The report prints seeded random pairs so a person can judge the definition.

Honest measurement: the rules were written looking only at ``TUNE`` conversations; figures are reported per split,
and the ``LEFT_OUT`` ones are the headline.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory.errors import InvalidInput
from memory.evaluation.locomo import _EVIDENCE_RE, parse_sample
from memory.text.language import CJK

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from memory.storage.embed import Embedder

#: the conversations whose turns the rules were written against; every other one is left out
TUNE = ("conv-26", "conv-30")
MIN_SHARED = 2
MIN_COSINE = 0.82
STRONG_COSINE = 0.90
PAIRS_SHOWN = 50

_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "so",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "from",
        "about",
        "as",
        "into",
        "onto",
        "over",
        "under",
        "up",
        "down",
        "out",
        "off",
        "is",
        "am",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "do",
        "does",
        "did",
        "done",
        "doing",
        "have",
        "has",
        "had",
        "having",
        "will",
        "would",
        "shall",
        "should",
        "can",
        "could",
        "may",
        "might",
        "must",
        "i",
        "me",
        "my",
        "mine",
        "we",
        "us",
        "our",
        "you",
        "your",
        "he",
        "him",
        "his",
        "she",
        "her",
        "it",
        "its",
        "they",
        "them",
        "their",
        "this",
        "that",
        "these",
        "those",
        "there",
        "here",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "not",
        "no",
        "yes",
        "very",
        "really",
        "just",
        "also",
        "too",
        "still",
        "even",
        "some",
        "any",
        "all",
        "each",
        "every",
        "more",
        "most",
        "much",
        "many",
        "such",
        "than",
        "then",
        "now",
        "only",
        "own",
        "same",
        "other",
        "another",
        "again",
        "ever",
        "user",
        "user's",
        "possibly",
        "assistant's",
        "inference",
        "s",
        "t",
        "don",
        "didn",
        "doesn",
        "isn",
        "wasn",
        "aren",
        "can't",
        "won't",
        "it's",
        "i'm",
        "i've",
        "get",
        "got",
        "getting",
        "go",
        "going",
        "went",
        "gone",
        "make",
        "made",
        "one",
        "thing",
        "things",
        "lot",
        "lots",
        "bit",
        "kind",
        "sort",
        "way",
        "well",
        "like",
    ]
)
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def stem(word: str) -> str:
    """A light suffix stripper: enough for 'paintings'/'painting'/'painted' to meet, nothing clever."""
    w = re.sub(r"'s$", "", word)
    for _ in range(2):  # "paintings" → "painting" → "paint"
        for suffix, repl in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""), ("ly", "")):
            if w.endswith(suffix) and len(w) - len(suffix) >= 3:
                w = w[: -len(suffix)] + repl
                break
        else:
            break
    return w


def content_words(text: str, names: Iterable[str] = ()) -> set[str]:
    """Stemmed content words of ``text`` (Chinese: its characters' bigrams), without the speakers' names."""
    low = text.lower()
    if CJK.search(low):
        chars = [c for c in low if CJK.match(c) and c not in "的了是我你他她用户在和也很都就"]
        return {a + b for a, b in zip(chars, chars[1:], strict=False)}
    drop = {n.lower() for n in names}
    return {stem(w) for w in _WORD.findall(low) if w not in _STOP and w not in drop and len(w) > 1}


# -- readability -------------------------------------------------------------------------------------------------
_DANGLING = re.compile(r"\b(?:it|this|that|these|those|one)\s*[.!。]?\s*(?:\([^)]*\)\s*\.?\s*)?$", re.IGNORECASE)
_DANGLING_PERSON = re.compile(r"\b(?:them|him|her)\s*[.!。]?\s*(?:\([^)]*\)\s*\.?\s*)?$", re.IGNORECASE)
_DOES = re.compile(
    r"\b(?:you|they|user|[A-Z][a-z]+) (?:regularly |also |usually )?does (?!not\b|n't\b)"
    r"(?:the|a|an|my|their|his|her|\w+ (?:it|them|this|that))\b|\byou (?:regularly |also )?does\b",
    re.IGNORECASE,
)
_FIRST_SECOND = re.compile(r"\b(?:I|me|my|mine|myself|I'm|I've|I'd|I'll|we|our|ours|us|you|your|yours)\b|[我咱你您]")
_SPEAKER = re.compile(r"\bUser\b|用户", re.IGNORECASE)


def readability(content: str) -> list[str]:
    """What makes a memory hard to read or to trust, as short labels (empty when it reads well)."""
    problems = []
    text = content.strip()
    if _DANGLING.search(text) or (_DANGLING_PERSON.search(text) and len(content_words(text)) < 3):
        problems.append("dangling pronoun")  # "User likes it.", "User regularly does play them."
    if _DOES.search(content):
        problems.append("does-template")
    if not _SPEAKER.search(text) or _FIRST_SECOND.search(_unquoted(content)):
        problems.append("subject not resolved")  # the speaker is named, no I / my / you is left
    return problems


def _unquoted(text: str) -> str:
    return re.sub(r"[\"“][^\"”]*[\"”]|「[^」]*」", "", text)


def as_speaker(content: str, speaker: str) -> str:
    """The memory as a reader of the conversation would say it: 'User' is the speaker."""
    out = re.sub(r"\bUser\b", speaker, content)
    out = re.sub(r"\buser\b", speaker, out)
    return out.replace("用户", speaker)


# -- the data ----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Turn:
    conversation: str
    dia_id: str
    speaker: str
    text: str
    at: datetime


@dataclass(frozen=True)
class Observation:
    conversation: str
    speaker: str
    text: str
    dia_ids: frozenset[str]


@dataclass
class Conversation:
    sample_id: str
    speakers: tuple[str, str]
    turns: list[Turn]
    observations: list[Observation]


def load(path: str | Path) -> list[Conversation]:
    """LoCoMo samples with their observations (a sample without any is skipped: nothing to score)."""
    import json

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InvalidInput(f"cannot read LoCoMo file {str(path)[:200]!r}: {exc}") from exc
    if not isinstance(data, list):
        raise InvalidInput("a LoCoMo file holds a JSON list of samples")
    out = []
    for raw in data:
        sample = parse_sample(raw)
        # the message as the product path sends it: a shared photo named by its caption ("… [shares a photo of …]")
        turns = [
            Turn(sample.sample_id, t.dia_id, t.speaker, t.message(), t.at) for s in sample.sessions for t in s.turns
        ]
        obs = []
        for per_session in (raw.get("observation") or {}).values():
            for speaker, items in (per_session or {}).items():
                for item in items or []:
                    if not isinstance(item, list | tuple) or len(item) < 2:
                        continue
                    ids = frozenset(f"D{a}:{b}" for a, b in _EVIDENCE_RE.findall(str(item[1])))
                    ids &= sample.dia_ids
                    if ids:
                        obs.append(Observation(sample.sample_id, str(speaker), str(item[0]), ids))
        if obs:
            out.append(Conversation(sample.sample_id, sample.speakers, turns, obs))
    return out


# -- extraction through the user's path --------------------------------------------------------------------------
def extract_turn(
    text: str,
    at: datetime,
    model: BaseChatModel | None = None,
    previous: str | None = None,
    embedder: Embedder | None = None,
    recent: list[str] | None = None,
) -> list[str]:
    """The memories a user's chat turn with this text would propose (classify → mask → extract, no storage), read
    after ``previous``, the other speaker's turn before it (as a chat turn is read after the agent's reply), and
    with ``recent``, the session's turns before it (as ``memory.write.batch.answered`` reads a session). With
    ``embedder``, the planner's worth-keeping decision (memory.write.keep) is applied to each candidate's passage
    vector, as the write path does; without one, every candidate is kept (as the write path keeps them there)."""
    from memory.storage.models import Message
    from memory.write import keep
    from memory.write.pipeline import Item, prepare

    message = Message(session_id="eval", user_key="eval", role="user", content=text, created_at=at)
    cands = prepare(Item(message, previous=previous, recent=recent or []), model).cands
    if embedder is not None and cands:
        for c, v in zip(cands, embedder.embed_passages([c.content for c in cands]), strict=True):
            c.vector = v
    name = getattr(embedder, "name", None)
    return [c.content for c in cands if keep.why_not(c, name) is None]


@dataclass
class Memory:
    turn: Turn
    content: str  # with the speaker's name for 'User'
    raw: str
    problems: list[str]
    agrees: bool = False
    best: tuple[float, int, str] | None = None  # (cosine, shared words, observation) of the closest observation


@dataclass
class Scored:
    memories: list[Memory] = field(default_factory=list)
    observations: list[tuple[Observation, bool]] = field(default_factory=list)
    turns: int = 0
    seconds: float = 0.0


def _answers(turn: Turn, before: Turn) -> bool:
    """Whether ``turn`` follows the other speaker's ``before`` in the same session (LoCoMo ids: "D<session>:<n>")."""
    return before.speaker != turn.speaker and _session(before) == _session(turn)


def _session(turn: Turn) -> str:
    return turn.dia_id.split(":")[0]


def read_in_session(turns: list[Turn]) -> Iterator[tuple[Turn, str | None, list[str]]]:
    """Each turn with what the write path reads it with (``memory.write.batch.answered``): the other speaker's turn
    just before it in its session (``previous``, or None) and the session's ``SESSION`` turns before it."""
    from memory.write.extract.recent import SESSION

    for i, turn in enumerate(turns):
        same = [t for t in turns[max(0, i - SESSION) : i] if _session(t) == _session(turn)]
        previous = same[-1].text if same and _answers(turn, same[-1]) else None
        yield turn, previous, [t.text for t in same]


def _agree(cos: float, shared: int) -> bool:
    return (shared >= MIN_SHARED and cos >= MIN_COSINE) or cos >= STRONG_COSINE


def score_conversation(
    conv: Conversation,
    embedder: Embedder,
    extractor: Callable[[str, datetime, str | None, list[str]], list[str]],
) -> Scored:
    t0 = time.perf_counter()
    out = Scored(turns=len(conv.turns))
    by_turn: dict[str, list[Memory]] = {}
    for turn, previous, recent in read_in_session(conv.turns):
        for raw in extractor(turn.text, turn.at, previous, recent):
            m = Memory(turn, as_speaker(raw, turn.speaker), raw, readability(raw))
            by_turn.setdefault(turn.dia_id, []).append(m)
            out.memories.append(m)
    pairs = [
        (m, o)
        for o in conv.observations
        for dia in sorted(o.dia_ids)
        for m in by_turn.get(dia, [])
        if m.turn.speaker == o.speaker
    ]
    # only what can agree is embedded (a memory no observation cites counts against precision as it is)
    mems = list({id(m): m for m, _ in pairs}.values())
    obs = list({id(o): o for _, o in pairs}.values())
    vecs = embedder.embed_passages([m.content for m in mems] + [o.text for o in obs])
    vec = {id(x): vecs[i] for i, x in enumerate([*mems, *obs])}
    names = conv.speakers
    words = {id(m): content_words(m.content, names) for m in mems}
    words |= {id(o): content_words(o.text, names) for o in obs}
    hit: set[int] = set()
    for m, o in pairs:
        cos = float(vec[id(m)] @ vec[id(o)])
        shared = len(words[id(m)] & words[id(o)])
        ok = _agree(cos, shared)
        if ok:
            hit.add(id(o))
            m.agrees = True
        if m.best is None or (ok, cos) > (_agree(m.best[0], m.best[1]), m.best[0]):
            m.best = (cos, shared, o.text)
    out.observations = [(o, id(o) in hit) for o in conv.observations]
    out.seconds = time.perf_counter() - t0
    return out


def summarise(parts: list[Scored]) -> dict[str, Any]:
    mems = [m for p in parts for m in p.memories]
    obs = [hit for p in parts for _, hit in p.observations]
    turns = sum(p.turns for p in parts)
    counts: dict[str, int] = {}
    for m in mems:
        for problem in m.problems:
            counts[problem] = counts.get(problem, 0) + 1
    return {
        "observations": len(obs),
        "recall": round(sum(obs) / len(obs), 4) if obs else None,
        "memories": len(mems),
        "precision": round(sum(m.agrees for m in mems) / len(mems), 4) if mems else None,
        "turns": turns,
        "memories_per_turn": round(len(mems) / turns, 3) if turns else None,
        "readable": round(sum(not m.problems for m in mems) / len(mems), 4) if mems else None,
        "unreadable_by_check": counts,
    }


def run(
    path: str | Path,
    *,
    embedder: Embedder,
    model: BaseChatModel | None = None,
    conversations: Iterable[str] | None = None,
    seed: int = 26,
    progress: Callable[[int], Any] | None = None,
) -> dict[str, Any]:
    """Score extraction on every conversation of ``path`` (or the named ones); per split, per conversation."""
    convs = load(path)
    if conversations:
        wanted = set(conversations)
        convs = [c for c in convs if c.sample_id in wanted]
        if not convs:
            raise InvalidInput(f"no conversation named {sorted(wanted)} in {str(path)[:200]}")

    def extractor(text: str, at: datetime, previous: str | None, recent: list[str]) -> list[str]:
        return extract_turn(text, at, model, previous, embedder, recent)

    scored: dict[str, Scored] = {}
    for conv in convs:
        scored[conv.sample_id] = score_conversation(conv, embedder, extractor)
        if progress:
            progress(1)
    splits = {
        "tune": [s for k, s in scored.items() if k in TUNE],
        "left_out": [s for k, s in scored.items() if k not in TUNE],
    }
    rng = random.Random(seed)
    mems = [m for s in scored.values() for m in s.memories]
    left = [m for k, s in scored.items() if k not in TUNE for m in s.memories]
    sample = rng.sample(left or mems, min(PAIRS_SHOWN, len(left or mems)))
    return {
        "extractor": "llm" if model is not None else "offline",
        "agreement": {
            "min_shared_content_words": MIN_SHARED,
            "min_cosine": MIN_COSINE,
            "strong_cosine": STRONG_COSINE,
            "embedder": getattr(embedder, "name", type(embedder).__name__),
        },
        "tune_conversations": [k for k in scored if k in TUNE],
        "splits": {name: summarise(parts) for name, parts in splits.items() if parts},
        "by_conversation": {k: summarise([s]) for k, s in scored.items()},
        "pairs": [_pair(m) for m in sample],
        "seconds": round(sum(s.seconds for s in scored.values()), 1),
    }


def _pair(m: Memory) -> dict[str, Any]:
    cos, shared, obs = m.best if m.best else (None, 0, None)
    return {
        "conversation": m.turn.conversation,
        "dia_id": m.turn.dia_id,
        "turn": m.turn.text,
        "memory": m.content,
        "observation": obs,
        "cosine": round(cos, 3) if cos is not None else None,
        "shared": shared,
        "agrees": m.agrees,
        "problems": m.problems,
    }


def lines(report: dict[str, Any], *, pairs: bool = True) -> list[str]:
    """The report as plain text: one row per split and conversation, then the pairs."""
    head = f"{'':<10} {'obs':>5} {'recall':>7} {'mems':>5} {'prec':>6} {'m/turn':>7} {'readable':>8}"
    out = [f"extractor: {report['extractor']} · agreement: {report['agreement']}", head]

    def row(name: str, v: dict[str, Any]) -> str:
        pct = lambda x: f"{100 * x:.1f}" if x is not None else "-"  # noqa: E731
        return (
            f"{name:<10} {v['observations']:>5} {pct(v['recall']):>7} {v['memories']:>5} {pct(v['precision']):>6} "
            f"{v['memories_per_turn'] or 0:>7.2f} {pct(v['readable']):>8}"
        )

    for name, v in report["splits"].items():
        out.append(row(name, v))
    for name, v in report["by_conversation"].items():
        out.append(row(name, v))
    if pairs:
        out.append("")
        out.append(f"{len(report['pairs'])} random memories with their closest observation (left-out conversations):")
        for p in report["pairs"]:
            mark = "AGREE" if p["agrees"] else "no   "
            bad = f" UNREADABLE {p['problems']}" if p["problems"] else ""
            out.append(f"{mark} cos={p['cosine']} shared={p['shared']} [{p['dia_id']}]{bad}")
            out.append(f"    memory:      {p['memory']}")
            out.append(f"    observation: {p['observation']}")
    return out


# -- labelled sets (fresh utterances, the frozen LoCoMo turns) ---------------------------------------------------
@dataclass(frozen=True)
class Labelled:
    """One utterance and the facts a careful reader would keep from it (sentences about ``speaker``)."""

    text: str
    speaker: str
    expected: tuple[str, ...]
    at: datetime


def score_labelled(
    items: list[Labelled],
    embedder: Embedder,
    extractor: Callable[[str, datetime], list[str]],
) -> dict[str, Any]:
    """Recall (expected facts with an agreeing memory), precision (memories agreeing with an expected fact of their
    utterance; any memory from an utterance that states nothing counts against it) and readability."""
    found: list[tuple[Labelled, list[str], list[str]]] = []
    for item in items:
        raws = extractor(item.text, item.at)
        found.append((item, raws, [as_speaker(r, item.speaker) for r in raws]))
    texts = [m for _, _, mems in found for m in mems] + [e for it, _, _ in found for e in it.expected]
    vecs = embedder.embed_passages(texts)
    vec = dict(zip(texts, vecs, strict=False))
    hit_exp = n_exp = hit_mem = n_mem = readable = 0
    misses: list[dict[str, Any]] = []
    for item, raws, mems in found:
        names = (item.speaker,)
        ok = [
            [
                _agree(float(vec[m] @ vec[e]), len(content_words(m, names) & content_words(e, names)))
                for e in item.expected
            ]
            for m in mems
        ]
        got_exp = [any(row[j] for row in ok) for j in range(len(item.expected))]
        got_mem = [any(row) for row in ok]
        hit_exp += sum(got_exp)
        n_exp += len(item.expected)
        hit_mem += sum(got_mem)
        n_mem += len(mems)
        readable += sum(not readability(r) for r in raws)
        if not all(got_exp) or not all(got_mem):
            misses.append({"text": item.text, "expected": list(item.expected), "got": mems})
    return {
        "items": len(items),
        "expected": n_exp,
        "recall": round(hit_exp / n_exp, 4) if n_exp else None,
        "memories": n_mem,
        "precision": round(hit_mem / n_mem, 4) if n_mem else None,
        "readable": round(readable / n_mem, 4) if n_mem else None,
        "misses": misses,
    }


def fresh_items(path: str | Path, at: datetime) -> dict[str, list[Labelled]]:
    """The fresh-utterance set by language ('en', 'zh')."""
    import json

    raw = json.loads(Path(path).read_text(encoding="utf-8"))["items"]
    out: dict[str, list[Labelled]] = {"en": [], "zh": []}
    for it in raw:
        lang = "zh" if CJK.search(it["text"]) else "en"
        out[lang].append(Labelled(it["text"], "User" if lang == "en" else "用户", tuple(it["expected"]), at))
    return out


def frozen_items(path: str | Path, locomo_path: str | Path) -> list[Labelled]:
    """The frozen LoCoMo turns with their hand-written facts (the turn text comes from the LoCoMo file)."""
    import json

    raw = json.loads(Path(path).read_text(encoding="utf-8"))["items"]
    turns = {(t.conversation, t.dia_id): t for c in load(locomo_path) for t in c.turns}
    out = []
    for it in raw:
        t = turns[(it["conversation"], it["dia_id"])]
        out.append(Labelled(t.text, t.speaker, tuple(it["facts"]), t.at))
    return out


# -- saved reports (the Evaluation page) -------------------------------------------------------------------------
def reports_folder(eval_dir: Path) -> Path:
    """Where ``memlens eval facts`` saves its reports: ``<data_dir>/eval/facts/`` (apart from the retrieval ones)."""
    return Path(eval_dir) / "facts"


def latest_reports(eval_dir: Path) -> dict[str, dict[str, Any]]:
    """The newest saved report per extractor ('offline', 'llm'), so the two are read on one table."""
    from memory.evaluation.runner import readable_reports

    out: dict[str, dict[str, Any]] = {}
    for report in readable_reports(reports_folder(eval_dir), "facts-*.json"):
        out.setdefault(str(report.get("extractor", "offline")), report)
    return out


def table_rows(reports: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per extractor and split: the figures docs/extraction.md and the Evaluation page show."""
    rows = []
    for extractor, report in reports.items():
        for split, v in report.get("splits", {}).items():
            pct = lambda x: round(100 * x, 1) if x is not None else None  # noqa: E731
            rows.append(
                {
                    "extractor": extractor,
                    "conversations": "left out of tuning" if split == "left_out" else "tuned on",
                    "observations": v["observations"],
                    "recall %": pct(v["recall"]),
                    "memories": v["memories"],
                    "precision %": pct(v["precision"]),
                    "memories per turn": v["memories_per_turn"],
                    "readable %": pct(v["readable"]),
                    "saved": report.get("created_at", ""),
                }
            )
    return rows
