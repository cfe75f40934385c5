"""The back office's pages, said once: the frame (backoffice.py) builds its navigation from this table and the sign-in
gate (pages.gate) answers every page's address with the sign-in form, so a deep link opened while signed out shows
the form (never "Page not found") and, once signed in, lands on the page that was asked for.

Give every page a ``url_path`` that differs from its file name (see backoffice.py)."""

from __future__ import annotations

from dataclasses import dataclass

from memory.vocab import Role


@dataclass(frozen=True)
class PageSpec:
    file: str
    title: str
    icon: str
    url_path: str
    section: str
    role: Role = Role.VIEWER  # the role a person needs to see the page at all
    default: bool = False


PAGES = (
    PageSpec("pages/chat.py", "Chat", ":material/chat:", "talk", "Talk", default=True),
    PageSpec("pages/tour.py", "Demo tour", ":material/tour:", "demo-tour", "Talk"),
    PageSpec("pages/profile.py", "Profile", ":material/badge:", "user-profile", "Inspect"),
    PageSpec("pages/memories.py", "Memories", ":material/history_edu:", "recent-writes", "Inspect"),
    PageSpec("pages/sessions.py", "Sessions & bridges", ":material/timeline:", "session-timeline", "Inspect"),
    PageSpec("pages/lifecycle.py", "Lifecycle", ":material/auto_delete:", "memory-lifecycle", "Inspect"),
    PageSpec("pages/desk.py", "Audit desk", ":material/fact_check:", "audit-desk", "Inspect"),
    PageSpec("pages/retrieval_lab.py", "Retrieval lab", ":material/science:", "lab", "Tune"),
    PageSpec("pages/context_budget.py", "Context budget", ":material/data_usage:", "budget", "Tune"),
    PageSpec("pages/evaluation.py", "Evaluation", ":material/leaderboard:", "eval-reports", "Tune", Role.ADMIN),
    PageSpec("pages/audit.py", "Audit", ":material/policy:", "audit-trail", "Govern", Role.ADMIN),
)


def visible(role: Role | str) -> dict[str, list[PageSpec]]:
    """The pages a role may open, by navigation section (in table order)."""
    out: dict[str, list[PageSpec]] = {}
    for spec in PAGES:
        if Role(role).allows(spec.role):
            out.setdefault(spec.section, []).append(spec)
    return out
