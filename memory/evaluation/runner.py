"""Run a LoCoMo evaluation end to end: ingest, ask every question through the real recall, build the report.

Each question is asked once per mode with the threshold off (−1), so the ranked candidates give the metrics at
every k and every threshold (see :mod:`memory.evaluation.metrics`). The report holds numbers only (no dialogue or
question text) and is saved under ``<data_dir>/eval/``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path

from memory.evaluation import metrics
from memory.evaluation.ingest import IngestStats, dia_ids_by_message, ingest_sample, memory_counts
from memory.evaluation.locomo import CATEGORIES, Sample, load
from memory.evaluation.metrics import Candidate, Outcome
from memory.retrieval.recall import Hit
from memory.service import MemoryService
from memory.storage.models import utcnow
from memory.text.tokens import count_tokens

Progress = Callable[[int], None]
MODES = ("vector", "fulltext", "hybrid")


@dataclass
class EvalOptions:
    ks: tuple[int, ...] = (5, 10, 25)
    mode: str = "hybrid"
    threshold: float | None = None  # None: rank only (no cut) for recall@k
    baselines: bool = True
    extract: bool = True
    limit: int | None = None  # questions per sample (quick runs)

    @property
    def modes(self) -> list[str]:
        extra = [m for m in ("fulltext", "vector") if m != self.mode] if self.baselines else []
        return [self.mode, *extra]


def _candidate(hit: Hit, dia_of: dict[int, str], tokens: dict[str, int]) -> Candidate:
    if hit.memory_id not in tokens:
        tokens[hit.memory_id] = count_tokens(hit.content)
    dia = frozenset(dia_of[m] for m in hit.source_message_ids if m in dia_of)
    return Candidate(dia_ids=dia, similarity=hit.similarity, tokens=tokens[hit.memory_id], type=hit.type)


def ask_sample(
    svc: MemoryService, sample: Sample, mode: str, opts: EvalOptions, progress: Progress | None = None
) -> list[Outcome]:
    """Ask one conversation's questions through ``svc.recall`` (not logged) and keep every ranked candidate."""
    user = svc.get_user(sample.user_id)
    dia_of = dia_ids_by_message(svc, user.key)
    tokens: dict[str, int] = {}
    questions = sample.questions[: opts.limit] if opts.limit else sample.questions
    out = []
    for q in questions:
        res = svc.recall(sample.user_id, q.question, log=False, mode=mode, k=max(opts.ks), threshold=-1.0)
        out.append(
            Outcome(
                sample_id=sample.sample_id,
                index=q.index,
                category=q.category,
                gold=q.evidence,
                ranked=[_candidate(h, dia_of, tokens) for h in res.hits],
                latency_ms=res.latency_ms,
            )
        )
        if progress:
            progress(1)
    return out


def _settings_block(svc: MemoryService, opts: EvalOptions) -> dict:
    p = svc.recall_params(mode=opts.mode, k=max(opts.ks))
    return {
        "ks": list(opts.ks),
        "mode": opts.mode,
        "threshold": opts.threshold,
        "configured_threshold": svc.effective_settings().similarity_threshold,
        "params": {k: v for k, v in asdict(p).items() if k not in ("k", "threshold")},
        "embedder": getattr(svc.embedder, "name", type(svc.embedder).__name__),
        "extract": opts.extract,
    }


def assemble(
    outcomes: dict[str, list[Outcome]],
    opts: EvalOptions,
    *,
    configured_threshold: float,
    settings: dict,
    ingest: dict,
    samples: list[str],
    source: str,
) -> dict:
    """The report dict from per-mode outcomes (pure): the main mode's blocks on top, every mode under ``runs``."""
    runs = {m: metrics.summarise(o, opts.ks, opts.threshold, configured_threshold) for m, o in outcomes.items()}
    main = runs[opts.mode]
    return {
        "benchmark": "locomo",
        "dataset": Path(source).name,
        "created_at": utcnow().isoformat(),
        "settings": settings,
        "samples": samples,
        "categories": {str(k): v for k, v in CATEGORIES.items()},
        "ingest": ingest,
        "overall": main["overall"],
        "overall_cat1_4": main["overall_cat1_4"],
        "by_category": main["by_category"],
        "runs": runs,
    }


def build_report(
    svc: MemoryService,
    samples: Sequence[Sample],
    outcomes: dict[str, list[Outcome]],
    opts: EvalOptions,
    ingest: IngestStats,
    source: str,
) -> dict:
    users = {s.sample_id: memory_counts(svc, svc.get_user(s.user_id).key) for s in samples}
    return assemble(
        outcomes,
        opts,
        configured_threshold=svc.effective_settings().similarity_threshold,
        settings=_settings_block(svc, opts),
        ingest={**asdict(ingest), "memories": users},
        samples=[s.sample_id for s in samples],
        source=source,
    )


def run_locomo(
    svc: MemoryService, path: str | Path, opts: EvalOptions, *, bar: Callable[[str, int], Progress] | None = None
) -> dict:
    """Ingest (or reuse) every conversation, ask all questions in each mode, return the report dict."""
    samples = load(path)
    turns = sum(s.turn_count for s in samples)
    ingest_progress = bar("ingest", turns) if bar else None
    stats = IngestStats(extraction="write_from_message" if opts.extract else "off")
    for sample in samples:
        stats.add(ingest_sample(svc, sample, extract=opts.extract, progress=ingest_progress))
    outcomes: dict[str, list[Outcome]] = {}
    for mode in opts.modes:
        n = sum(len(s.questions[: opts.limit] if opts.limit else s.questions) for s in samples)
        ask_progress = bar(f"recall ({mode})", n) if bar else None
        outcomes[mode] = [o for s in samples for o in ask_sample(svc, s, mode, opts, ask_progress)]
    return build_report(svc, samples, outcomes, opts, stats, str(path))


def reports_dir(svc: MemoryService) -> Path:
    return Path(svc.settings.data_dir) / "eval"


def eval_service(svc: MemoryService) -> MemoryService:
    """The store benchmark conversations are ingested into: ``<data_dir>/eval/store`` (its own SQLite file and
    LanceDB folder), so LoCoMo speakers never appear among the product's users. Same embedder, same settings."""
    store_dir = reports_dir(svc) / "store"
    settings = svc.settings.model_copy(update={"data_dir": store_dir, "database_url": None, "lancedb_uri": None})
    return MemoryService(settings, embedder=svc.embedder)


def save_report(report: dict, folder: Path, name: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    stamp = datetime.fromisoformat(report["created_at"]).strftime("%Y%m%d-%H%M%S")
    path = folder / (name or f"locomo-{report['settings']['mode']}-{stamp}.json")
    path.write_text(json.dumps(report, indent=1, ensure_ascii=False), encoding="utf-8")
    return path


def list_reports(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True) if folder.exists() else []


def load_report(path: str | Path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))
