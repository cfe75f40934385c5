"""`memlens seed-demo`: demo users (English and Chinese) whose multi-session histories go through the real agent loop.

Every message is a real turn (recall → compose → reply → write) and every session is ended (so bridges exist). Each
session is moved back to its day (:data:`DAYS_BACK`: twelve days, five days and one day ago, at different hours) as
soon as it ends, before the next one starts: so the next session's replies read the earlier statements with their
true dates ("you told me on 20 November", never "earlier today"), relative dates ("last month", "下个月") are resolved
again against the moved messages, and the profile's change log spreads over the days it happened. A presenter's
new session (the back office's Demo tour) then starts today with all of it behind it.

A few hits are labelled by the demo's author (``labeled_by="seed-demo"``) so the
retrieval lab's precision/recall has data at once. Idempotent: a user who already has sessions is left alone.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from memory.cli.common import service
from memory.vocab import Actor, Role

if TYPE_CHECKING:  # imported where used: registering `seed-demo` must stay cheap (`memlens --help`)
    from agent.runtime import Agent
    from memory.service import MemoryService


@dataclass(frozen=True)
class DemoUser:
    user_id: str
    sessions: tuple[tuple[str, ...], ...]
    #: words that make a recalled memory relevant to a question (the demo author's labels)
    topics: dict[str, tuple[str, ...]]


DEMO_USERS = (
    DemoUser(
        "alice",
        (
            (
                "Hi! I'm Alice, call me Ali.",
                "I live in Berlin and I work as a nurse.",
                "I don't eat spicy food, and I'm vegetarian.",
                "I'm planning a trip to Japan in April; my budget is 3000 euros.",
                "Can you suggest a first day in Tokyo?",
            ),
            ("I moved to Lisbon last month.", "Any dinner ideas for tonight?", "What do you remember about my trip?"),
            ("Help me pack for Japan.", "Where do I live now?"),
        ),
        {
            "dinner": ("spicy", "vegetarian"),
            "trip": ("Japan", "budget", "April"),
            "pack": ("Japan", "April"),
            "live": ("Lisbon", "Berlin"),
            "Tokyo": ("Japan", "spicy", "vegetarian"),
        },
    ),
    DemoUser(
        "王芳",
        (
            (
                "你好，我叫王芳，叫我小芳就行。",
                "我住在杭州，是一名设计师。",
                "我不吃辣。",
                "我的预算是5000元，想下个月去成都玩。",
            ),
            ("我搬到上海了。", "周末去哪里吃饭比较好？", "你还记得我的旅行计划吗？"),
            ("帮我安排一下成都的行程。", "我现在住在哪里？"),
        ),
        {"吃饭": ("辣",), "旅行": ("成都", "预算"), "成都": ("成都", "辣", "预算"), "住": ("上海", "杭州")},
    ),
    DemoUser(
        "bob@example.com",
        (
            (
                "Call me Bob. I prefer short answers.",
                "I'm learning Spanish and I love jazz.",
                "My budget for a new laptop is 1500 dollars.",
            ),
            ("Recommend something to listen to tonight.", "Which laptop fits my budget?"),
        ),
        {"listen": ("jazz",), "laptop": ("laptop", "budget")},
    ),
    DemoUser(
        "李雷",
        (
            ("我叫李雷，在北京当老师。", "我喜欢爬山和摄影。"),
            ("这个周末有什么户外活动推荐？", "I also speak English, by the way."),
        ),
        {"户外": ("爬山", "摄影")},
    ),
)
#: how long ago each demo session happened, in days (oldest first; hours apart so a timeline shows the time of day)
DAYS_BACK = (12.1, 5.25, 1.0)


def seed(
    svc: MemoryService,
    agent: Agent,
    users: tuple[DemoUser, ...] = DEMO_USERS,
    progress: Callable[[str], None] | None = None,
) -> dict[str, int]:
    """Run every demo conversation through ``agent``; returns how many users were seeded and skipped."""
    seeded = skipped = 0
    for demo in users:
        user = svc.ensure_user(demo.user_id)
        if svc.list_sessions(user):
            skipped += 1
            continue
        offsets = days_back(len(demo.sessions))
        for n, messages in enumerate(demo.sessions):
            name = f"demo-{n + 1}"
            for text in messages:
                agent.chat(demo.user_id, name, text)
                if progress:
                    progress(f"{demo.user_id} · {name} · {text}")
            agent.end_session(demo.user_id, name)
            agent.wait()  # its writes and summaries land before the session moves back to its day
            svc.shift_session(user, name, offsets[n])
        _label(svc, user.key, demo.topics)
        seeded += 1
    return {"seeded": seeded, "skipped": skipped}


def days_back(sessions: int) -> tuple[float, ...]:
    """How many days ago each of ``sessions`` sessions happened: the last :data:`DAYS_BACK`, or a day apart."""
    if sessions <= len(DAYS_BACK):
        return DAYS_BACK[-sessions:] if sessions else ()
    return tuple(float(sessions - n) for n in range(sessions))


#: how many of a question's best-ranked hits the demo's author labels, and who they are (in the labels and the audit)
LABELLED_HITS = 8
DEMO_AUTHOR = Actor("seed-demo", Role.CURATOR, via="cli")


def _label(svc: MemoryService, user_key: str, topics: dict[str, tuple[str, ...]]) -> int:
    """Label the hits of the demo's questions: relevant when the memory mentions one of the question's topics."""
    from memory import views

    labelled = 0
    for r in views.recent_retrievals(svc.storage, user_key, limit=100):
        words = next((w for key, w in topics.items() if key.lower() in r["query"].lower()), None)
        if words is None:
            continue
        for h in views.retrieval_hits(svc.storage, r["id"])[:LABELLED_HITS]:
            relevant = any(w.lower() in h["content"].lower() for w in words)
            svc.label_hit(r["id"], h["memory_id"], relevant, actor=DEMO_AUTHOR)
            labelled += 1
    return labelled


#: the LoCoMo report this repository ships (numbers only), so the Evaluation page has something to show at once
SHIPPED_REPORT = Path(__file__).resolve().parents[1] / "bench" / "results" / "eval_locomo_dev.json"


def install_shipped_report(svc: MemoryService, source: Path = SHIPPED_REPORT) -> Path | None:
    """Copy the shipped evaluation report into the data folder unless a report is already there."""
    from memory.evaluation import list_reports, reports_dir

    folder = reports_dir(svc)
    if list_reports(folder) or not source.is_file():
        return None
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "locomo-dev-shipped.json"
    shutil.copyfile(source, target)
    return target


cli = typer.Typer()


@cli.command("seed-demo")
def seed_demo(quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the summary.")] = False) -> None:
    """Create the demo users (English and Chinese) through the real agent loop; safe to run twice."""
    from agent.runtime import Agent

    svc = service()
    bot = Agent(svc)
    try:
        counts = seed(svc, bot, progress=None if quiet else lambda line: typer.echo(f"  {line}"))
    finally:
        bot.close()
    if install_shipped_report(svc):
        typer.echo("evaluation: installed the shipped LoCoMo report (bench/results/eval_locomo_dev.json)")
    typer.echo(
        f"demo users: {counts['seeded']} seeded, {counts['skipped']} already there "
        f"({', '.join(u.user_id for u in DEMO_USERS)}). Next: streamlit run app.py"
    )
