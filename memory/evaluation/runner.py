"""Run a LoCoMo evaluation end to end: ingest, ask every question through the real recall, build the report.

Each question is asked once per mode with the threshold off (−1), so the ranked candidates give the metrics at
every k and every threshold (see :mod:`memory.evaluation.metrics`). The report holds numbers only (no dialogue or
question text) and is saved under ``<data_dir>/eval/``.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from memory.evaluation import crossval, metrics
from memory.evaluation.ingest import IngestStats, dia_ids_by_message, ingest_sample, memory_counts
from memory.evaluation.locomo import CATEGORIES, Sample, load
from memory.evaluation.metrics import Outcome, RankedRecord
from memory.retrieval.recall import Hit
from memory.retrieval.relevance import Calibration
from memory.service import MemoryService
from memory.storage.models import utcnow
from memory.text.tokens import count_tokens
from memory.vocab import SearchMode

Progress = Callable[[int], None]
MODES = tuple(SearchMode)


@dataclass
class EvalOptions:
    ks: tuple[int, ...] = (5, 10, 25)
    mode: str = "hybrid"
    threshold: float | None = None  # None: rank only (no cut) for recall@k
    baselines: bool = True
    extract: bool = True
    limit: int | None = None  # questions per sample (quick runs)
    foreign: bool = True  # also ask each conversation's questions of the next conversation's user
    cache: Path | None = None  # asked outcomes saved here and reused by later runs (fit / eval iterations)

    @property
    def modes(self) -> list[str]:
        extra = [m for m in ("fulltext", "vector") if m != self.mode] if self.baselines else []
        return [self.mode, *extra]


def _ranked_record(hit: Hit, dia_of: dict[int, str], tokens: dict[str, int]) -> RankedRecord:
    if hit.memory_id not in tokens:
        tokens[hit.memory_id] = count_tokens(hit.content)
    dia = frozenset(dia_of[m] for m in hit.source_message_ids if m in dia_of)
    return RankedRecord(
        dia_ids=dia,
        similarity=hit.similarity,
        tokens=tokens[hit.memory_id],
        type=hit.type,
        relevance=hit.relevance,
        features=tuple(hit.features),
    )


def ask_sample(
    svc: MemoryService,
    sample: Sample,
    mode: str,
    opts: EvalOptions,
    progress: Progress | None = None,
    asked_of: Sample | None = None,
) -> list[Outcome]:
    """Ask one conversation's questions through ``svc.recall`` (not logged) and keep every ranked candidate.

    With ``asked_of`` (another conversation), the questions go to that conversation's user: nothing there is
    relevant, so the outcomes are marked ``foreign`` and carry no gold."""
    target = asked_of or sample
    user = svc.get_user(target.user_id)
    dia_of = dia_ids_by_message(svc, user.key)
    tokens: dict[str, int] = {}
    questions = sample.questions[: opts.limit] if opts.limit else sample.questions
    out = []
    for q in questions:
        res = svc.recall(target.user_id, q.question, log=False, mode=mode, k=max(opts.ks), threshold=-1.0)
        out.append(
            Outcome(
                sample_id=sample.sample_id,
                index=q.index,
                category=q.category,
                gold=frozenset() if asked_of else q.evidence,
                ranked=[_ranked_record(h, dia_of, tokens) for h in res.hits],
                latency_ms=res.latency_ms,
                asked_of=asked_of.sample_id if asked_of else None,
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
        "configured_threshold": svc.recall_params().threshold,
        "calibration": svc.relevance_model().version,
        "params": {k: v for k, v in asdict(p).items() if k not in ("k", "threshold")},
        "embedder": svc.storage.embedder.name,
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
    configured_k: int = 5,
    foreign: Sequence[Outcome] = (),
) -> dict:
    """The report dict from per-mode outcomes (pure): the main mode's blocks on top, every mode under ``runs``;
    with ``foreign`` outcomes also the answerable/foreign rates at the configured cut, their curves against the
    threshold, and leave-one-conversation-out figures beside the in-sample ones."""
    runs = {m: metrics.summarise(o, opts.ks, opts.threshold, configured_threshold) for m, o in outcomes.items()}
    main = runs[opts.mode]
    report = {
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
    if foreign:
        both = [*outcomes[opts.mode], *foreign]
        report["at_threshold"] = metrics.at_threshold(both, configured_threshold, configured_k)
        report["threshold_curves"] = metrics.threshold_curves(both, configured_k)
        raw = crossval.rescored(both, Calibration(embedder="raw"))
        report["raw_similarity_at_0.80"] = metrics.at_threshold(raw, 0.80, configured_k)
        if len(samples) > 1:
            report["cross_validated"] = cross_validated(both, opts, settings["embedder"], configured_k)
    return report


def cross_validated(both: list[Outcome], opts: EvalOptions, embedder: str, k: int) -> dict:
    """Leave-one-conversation-out calibration, rates at the threshold chosen there, and recall@k per category (ranked
    by the left-out relevance, as recall ranks with a fitted calibration)."""
    cv = crossval.loco(both, embedder=embedder, k=k, ks=opts.ks)
    cv.pop("outcomes")
    return cv


def build_report(
    svc: MemoryService,
    samples: Sequence[Sample],
    outcomes: dict[str, list[Outcome]],
    opts: EvalOptions,
    ingest: IngestStats,
    source: str,
    foreign: Sequence[Outcome] = (),
) -> dict:
    users = {s.sample_id: memory_counts(svc, svc.get_user(s.user_id).key) for s in samples}
    params = svc.recall_params()
    return assemble(
        outcomes,
        opts,
        configured_threshold=params.threshold,
        configured_k=params.k,
        settings=_settings_block(svc, opts),
        ingest={**asdict(ingest), "memories": users},
        samples=[s.sample_id for s in samples],
        source=source,
        foreign=foreign,
    )


def ask_all(
    svc: MemoryService, samples: Sequence[Sample], opts: EvalOptions, bar: Callable[[str, int], Progress] | None
) -> tuple[dict[str, list[Outcome]], list[Outcome]]:
    """Every question in every mode, plus (main mode) each conversation's questions asked of the next one's user."""
    n = sum(len(s.questions[: opts.limit] if opts.limit else s.questions) for s in samples)
    outcomes: dict[str, list[Outcome]] = {}
    for mode in opts.modes:
        ask_progress = bar(f"recall ({mode})", n) if bar else None
        outcomes[mode] = [o for s in samples for o in ask_sample(svc, s, mode, opts, ask_progress)]
    foreign: list[Outcome] = []
    if opts.foreign and len(samples) > 1:
        ask_progress = bar("recall (foreign user)", n) if bar else None
        for i, s in enumerate(samples):
            other = samples[(i + 1) % len(samples)]
            foreign += ask_sample(svc, s, opts.mode, opts, ask_progress, asked_of=other)
    return outcomes, foreign


class _CacheUnpickler(pickle.Unpickler):
    """Reads caches written before a class was renamed (``metrics.Candidate`` is ``metrics.RankedRecord`` now)."""

    RENAMED = {("memory.evaluation.metrics", "Candidate"): ("memory.evaluation.metrics", "RankedRecord")}

    def find_class(self, module: str, name: str) -> Any:
        return super().find_class(*self.RENAMED.get((module, name), (module, name)))


def _cached(opts: EvalOptions) -> tuple[dict[str, list[Outcome]], list[Outcome]] | None:
    """Outcomes asked by an earlier run with the same modes and limit (a private pickle of our own dataclasses)."""
    if opts.cache is None or not Path(opts.cache).exists():
        return None
    with open(opts.cache, "rb") as fh:
        data = _CacheUnpickler(fh).load()  # a file this command wrote
    if data.get("key") != [opts.modes, opts.limit, opts.foreign]:
        return None
    return data["outcomes"], data["foreign"]


def run_locomo(
    svc: MemoryService, path: str | Path, opts: EvalOptions, *, bar: Callable[[str, int], Progress] | None = None
) -> dict:
    """Ingest (or reuse) every conversation, ask all questions in each mode (or reuse ``opts.cache``), report."""
    samples, stats, (outcomes, foreign) = gather(svc, path, opts, bar)
    return build_report(svc, samples, outcomes, opts, stats, str(path), foreign)


def gather(svc: MemoryService, path: str | Path, opts: EvalOptions, bar: Callable[[str, int], Progress] | None):
    """Samples, ingest statistics, and the asked outcomes (own per mode, foreign)."""
    samples = load(path)
    turns = sum(s.turn_count for s in samples)
    ingest_progress = bar("ingest", turns) if bar else None
    stats = IngestStats(extraction="write_from_message" if opts.extract else "off")
    for sample in samples:
        stats.add(ingest_sample(svc, sample, extract=opts.extract, progress=ingest_progress))
    asked = _cached(opts)
    if asked is None:
        asked = ask_all(svc, samples, opts, bar)
        if opts.cache is not None:
            with open(opts.cache, "wb") as fh:
                key = [opts.modes, opts.limit, opts.foreign]
                pickle.dump({"key": key, "outcomes": asked[0], "foreign": asked[1]}, fh)
    outcomes, foreign = asked
    if opts.cache is not None:
        outcomes, foreign = _rescore_current(svc, outcomes, foreign)
    return samples, stats, (outcomes, foreign)


def _rescore_current(svc: MemoryService, outcomes: dict, foreign: list) -> tuple[dict, list]:
    """Cached candidates scored with the calibration in force now (features do not depend on it)."""
    cal = svc.relevance_model()
    for_mode = {m: svc.recall_setup(mode=m)[1] for m in outcomes}  # another mode may fall back to raw similarity
    return {m: crossval.rescored(o, for_mode[m]) for m, o in outcomes.items()}, crossval.rescored(foreign, cal)


def reports_dir(svc: MemoryService) -> Path:
    return Path(svc.settings.data_dir) / "eval"


def eval_service(svc: MemoryService) -> MemoryService:
    """The store benchmark conversations are ingested into: ``<data_dir>/eval/store`` (its own SQLite file and
    LanceDB folder), so LoCoMo speakers never appear among the product's users. Same embedder, same settings."""
    store_dir = reports_dir(svc) / "store"
    settings = svc.settings.model_copy(update={"data_dir": store_dir, "database_url": None, "lancedb_uri": None})
    return MemoryService(settings, embedder=svc.storage.embedder)


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
