"""Run a LoCoMo evaluation end to end: ingest, ask every question through the real recall, build the report.

Each question is asked once per mode with the threshold off (−1), so the ranked candidates give the metrics at
every k and every threshold (see :mod:`memory.evaluation.metrics`). The report holds numbers only (no dialogue or
question text) and is saved under ``<data_dir>/eval/``.
"""

from __future__ import annotations

import json
import pickle
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from memory.errors import InvalidInput
from memory.evaluation import crossval, metrics, tune
from memory.evaluation.ingest import IngestStats, conversation, dia_ids_by_message, ingest_sample, memory_counts
from memory.evaluation.locomo import CATEGORIES, EARLY, Sample, load
from memory.evaluation.metrics import Outcome
from memory.evaluation.tune import Probe
from memory.retrieval.policy import RecallPolicy
from memory.retrieval.recall import MemoryRow, rank_signals
from memory.retrieval.relevance import Calibration
from memory.service import MemoryService
from memory.storage.models import utcnow
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
    #: early stores: each conversation also as its user's store stood after its first n sessions (its own user,
    #: main mode only), asked the questions it can already answer and the next conversation's questions (foreign);
    #: they join the calibration and the threshold's answerable / foreign rates, never the recall@k figures
    early: tuple[int, ...] = (1, 3)

    @property
    def modes(self) -> list[str]:
        extra = [m for m in ("fulltext", "vector") if m != self.mode] if self.baselines else []
        return [self.mode, *extra]


def ask_sample(
    svc: MemoryService,
    sample: Sample,
    mode: str,
    opts: EvalOptions,
    progress: Progress | None = None,
    asked_of: Sample | None = None,
) -> list[Probe]:
    """Ask one conversation's questions once each (the search's raw signals, ranked and timed as ``svc.recall``
    would; not logged).

    With ``asked_of`` (another conversation), the questions go to that conversation's user: nothing there is
    relevant, so the probes are marked ``foreign`` and carry no gold."""
    target = asked_of or sample
    user = svc.get_user(target.user_id)
    dia_of = dia_ids_by_message(svc.storage, user.key)
    rows: dict[str, MemoryRow] = {}  # one object per memory, so a cache pickles each row once
    questions = sample.questions[: opts.limit] if opts.limit else sample.questions
    wide = svc.recall_policy(mode=mode, k=max(opts.ks), threshold=-1.0)
    out = []
    for q in questions:
        start = time.perf_counter()
        sig, params = svc.recall_signals(target.user_id, q.question, wide)
        rank_signals(sig, params=params, calibration=params.calibration)
        sig.rows = [rows.setdefault(r.id, r) for r in sig.rows]
        out.append(
            Probe(
                sample_id=sample.sample_id,
                index=q.index,
                category=q.category,
                gold=frozenset() if asked_of else q.evidence,
                signals=sig,
                dia_of=dia_of,
                asked_of=asked_of.sample_id if asked_of else None,
                latency_ms=(time.perf_counter() - start) * 1000,
            )
        )
        if progress:
            progress(1)
    return out


def _settings_block(svc: MemoryService, opts: EvalOptions) -> dict:
    p = svc.recall_policy(mode=opts.mode, k=max(opts.ks))
    return {
        "ks": list(opts.ks),
        "mode": opts.mode,
        "threshold": opts.threshold,
        "configured_threshold": svc.recall_policy().threshold,
        "calibration": svc.relevance_model().version,
        "params": {k: v for k, v in p.to_dict().items() if k not in ("k", "threshold")},
        "embedder": svc.embedder_name,
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
    early: Sequence[Outcome] = (),
    probes: Sequence[Probe] = (),
    base: RecallPolicy | None = None,
    memory_cap: int | None = None,
) -> dict:
    """The report dict from per-mode outcomes (pure): the main mode's blocks on top, every mode under ``runs``;
    with ``foreign`` outcomes also the answerable/foreign rates at the configured cut, their curves against the
    threshold, and leave-one-conversation-out figures beside the in-sample ones — with ``probes`` (the main mode's
    own and foreign questions) and ``base`` (the params they were asked with) the fusion weights are tuned per fold
    too (:func:`memory.evaluation.tune.nested`), else only the calibration is left out. ``early``: the outcomes of
    early stores (:attr:`EvalOptions.early`), reported apart at the configured cut (``early_stores``)."""
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
    alone = metrics.alone(outcomes[opts.mode])
    report["memories_alone"] = {  # the same questions, each memory without its source context
        "overall": metrics.aggregate(alone, opts.ks, opts.threshold),
        "by_category": {
            str(c): metrics.aggregate([o for o in alone if o.category == c], opts.ks, opts.threshold)
            for c in sorted({o.category for o in alone})
        },
    }
    if foreign:
        both = [*outcomes[opts.mode], *foreign]
        report["at_threshold"] = metrics.at_threshold(both, configured_threshold, configured_k)
        report["at_threshold_by_layer"] = {
            layer: metrics.at_threshold(both, configured_threshold, configured_k, layer) for layer in metrics.LAYERS
        }
        report["at_threshold_alone"] = metrics.at_threshold(metrics.alone(both), configured_threshold, configured_k)
        report["threshold_curves"] = metrics.threshold_curves(both, configured_k)
        raw = crossval.rescored(both, Calibration(embedder="raw"))
        report["raw_similarity_at_0.80"] = metrics.at_threshold(raw, 0.80, configured_k)
        if early:
            report["early_stores"] = crossval.at_threshold_by_store(early, configured_threshold, configured_k)
        if len(samples) > 1:
            embedder = settings["embedder"]
            if probes and base is not None:
                cv = tune.nested(probes, base, embedder=embedder, k=configured_k, ks=opts.ks, memory_cap=memory_cap)
            else:
                cv = crossval.loco(both, embedder=embedder, k=configured_k, ks=opts.ks)
            cv.pop("outcomes")
            report["cross_validated"] = cv
    return report


def build_report(
    svc: MemoryService, samples: Sequence[Sample], asked: Asked, opts: EvalOptions, ingest: IngestStats, source: str
) -> dict:
    users = {s.sample_id: memory_counts(svc.storage, svc.get_user(s.user_id).key) for s in samples}
    params = svc.recall_policy()
    full = {mode: [o for o in outs if not _early(o)] for mode, outs in asked.outcomes.items()}
    return assemble(
        full,
        opts,
        configured_threshold=params.threshold,
        configured_k=params.k,
        settings=_settings_block(svc, opts),
        ingest={**asdict(ingest), "memories": users},
        samples=[s.sample_id for s in samples],
        source=source,
        foreign=[o for o in asked.foreign if not _early(o)],
        early=[o for o in [*asked.outcomes.get(opts.mode, []), *asked.foreign] if _early(o)],
        probes=[*asked.probes.get(opts.mode, []), *asked.foreign_probes],
        base=svc.recall_policy(mode=opts.mode, k=max(opts.ks), threshold=-1.0),
        memory_cap=svc.effective_settings().context_memories_cap,
    )


def _early(o: Outcome) -> bool:
    """Asked of an early store (its answerable or a foreign question)."""
    return crossval.store_of(o) != "full"


@dataclass
class Asked:
    """Every question asked once per mode (probes), and the outcomes ranked from them with the current settings."""

    probes: dict[str, list[Probe]]
    foreign_probes: list[Probe]
    outcomes: dict[str, list[Outcome]] = field(default_factory=dict)
    foreign: list[Outcome] = field(default_factory=list)


def ask_all(
    svc: MemoryService,
    samples: Sequence[Sample],
    opts: EvalOptions,
    bar: Callable[[str, int], Progress] | None,
    early: Sequence[Sample] = (),
) -> Asked:
    """Every question in every mode, plus (main mode) each conversation's questions asked of the next one's user;
    each early store (main mode) is asked its answerable questions and the next conversation's questions."""

    def count(group: Sequence[Sample]) -> int:
        return sum(len(s.questions[: opts.limit] if opts.limit else s.questions) for s in group)

    n = count(samples)
    probes: dict[str, list[Probe]] = {}
    for mode in opts.modes:
        ask_progress = bar(f"recall ({mode})", n) if bar else None
        probes[mode] = [p for s in samples for p in ask_sample(svc, s, mode, opts, ask_progress)]
    foreign: list[Probe] = []
    if opts.foreign and len(samples) > 1:
        ask_progress = bar("recall (foreign user)", n) if bar else None
        for i, s in enumerate(samples):
            other = samples[(i + 1) % len(samples)]
            foreign += ask_sample(svc, s, opts.mode, opts, ask_progress, asked_of=other)
    if early:
        ask_progress = bar("recall (early stores)", count(early)) if bar else None
        probes[opts.mode] += [p for s in early for p in ask_sample(svc, s, opts.mode, opts, ask_progress)]
        if opts.foreign and len(samples) > 1:
            ids = [s.sample_id for s in samples]
            for store in early:
                at = ids.index(store.sample_id.split(EARLY, 1)[0])
                other = samples[(at + 1) % len(samples)]
                foreign += ask_sample(svc, other, opts.mode, opts, asked_of=store)
    return Asked(probes, foreign)


class _CacheUnpickler(pickle.Unpickler):
    """Reads caches written before a class was renamed (``metrics.Candidate`` is ``metrics.RankedRecord`` now)."""

    RENAMED = {("memory.evaluation.metrics", "Candidate"): ("memory.evaluation.metrics", "RankedRecord")}

    def find_class(self, module: str, name: str) -> Any:
        return super().find_class(*self.RENAMED.get((module, name), (module, name)))


_CACHE_FORMAT = 2  # probes (raw signals), not ranked outcomes


def _cache_key(opts: EvalOptions) -> list:
    return [_CACHE_FORMAT, opts.modes, opts.limit, opts.foreign, list(opts.early)]


def _cached(opts: EvalOptions) -> Asked | None:
    """Probes asked by an earlier run with the same modes and limit (a private pickle of our own dataclasses)."""
    if opts.cache is None or not Path(opts.cache).exists():
        return None
    with open(opts.cache, "rb") as fh:
        data = _CacheUnpickler(fh).load()  # a file this command wrote
    if data.get("key") != _cache_key(opts):
        return None
    return Asked(data["probes"], data["foreign_probes"])


def run_locomo(
    svc: MemoryService, path: str | Path, opts: EvalOptions, *, bar: Callable[[str, int], Progress] | None = None
) -> dict:
    """Ingest (or reuse) every conversation, ask all questions in each mode (or reuse ``opts.cache``), report."""
    samples, stats, asked = gather(svc, path, opts, bar)
    return build_report(svc, samples, asked, opts, stats, str(path))


def gather(
    svc: MemoryService, path: str | Path, opts: EvalOptions, bar: Callable[[str, int], Progress] | None
) -> tuple[list[Sample], IngestStats, Asked]:
    """Samples, ingest statistics, and the asked probes with their outcomes ranked under the current settings and
    calibration (so a cached run reflects a change of weights, calibration or ranking code)."""
    samples = load(path)
    early = [s.first_sessions(n) for n in opts.early for s in samples if n < len(s.sessions)]
    turns = sum(s.turn_count for s in samples)
    ingest_progress = bar("ingest", turns) if bar else None
    stats = IngestStats()
    for sample in samples:
        stats.add(ingest_sample(svc, sample, extract=opts.extract, progress=ingest_progress))
    if early:  # the same path; counted apart (the ingest figures describe the conversations)
        early_progress = bar("ingest (early stores)", sum(s.turn_count for s in early)) if bar else None
        for sample in early:
            ingest_sample(svc, sample, extract=opts.extract, progress=early_progress)
    asked = _cached(opts)
    if asked is None:
        asked = ask_all(svc, samples, opts, bar, early)
        if opts.cache is not None:
            with open(opts.cache, "wb") as fh:
                data = {"key": _cache_key(opts), "probes": asked.probes, "foreign_probes": asked.foreign_probes}
                pickle.dump(data, fh)
    attach_conversations(svc, [p for ps in asked.probes.values() for p in ps] + asked.foreign_probes)
    tokens: dict[str, tuple[int, int]] = {}
    cap = svc.effective_settings().context_memories_cap  # the metrics count what the composer keeps under it
    for mode, probes in asked.probes.items():
        params = svc.recall_policy(mode=mode, k=max(opts.ks), threshold=-1.0)
        asked.outcomes[mode] = tune.replay(probes, params, tokens, calibration=params.calibration, memory_cap=cap)
    params = svc.recall_policy(mode=opts.mode, k=max(opts.ks), threshold=-1.0)
    asked.foreign = tune.replay(asked.foreign_probes, params, tokens, calibration=params.calibration, memory_cap=cap)
    return samples, stats, asked


def attach_conversations(svc: MemoryService, probes: Sequence[Probe]) -> None:
    """Each probe gets its asked user's conversation, read from SQL once per user (source context is windowed from
    it at replay). A cached probe whose message ids do not match this store's is refused, not silently miscounted."""
    found: dict[str, tuple[dict[int, str], tune.Conversation]] = {}
    for p in probes:
        user_id = f"locomo:{p.asked_of or p.sample_id}"
        if user_id not in found:
            key = svc.get_user(user_id).key
            found[user_id] = (dia_ids_by_message(svc.storage, key), conversation(svc.storage, key))
        dia_of, conv = found[user_id]
        if p.dia_of is not dia_of and dict(p.dia_of) != dia_of:
            raise InvalidInput(
                f"the cached questions of {user_id} were asked of another store (message ids differ): delete the cache"
            )
        p.dia_of, p.conversation = dia_of, conv


def reports_dir(svc: MemoryService) -> Path:
    return Path(svc.settings.data_dir) / "eval"


def eval_service(svc: MemoryService) -> MemoryService:
    """The store benchmark conversations are ingested into: ``<data_dir>/eval/store`` (its own SQLite file and
    LanceDB folder), so LoCoMo speakers never appear among the product's users. Same embedder, same settings."""
    store_dir = reports_dir(svc) / "store"
    settings = svc.settings.model_copy(update={"data_dir": store_dir, "database_url": None, "lancedb_uri": None})
    return MemoryService(settings, embedder=svc.storage.embedder)


def save_report(report: dict, folder: Path, name: str | None = None, *, prefix: str | None = None) -> Path:
    """``report`` as ``folder/name``, or ``<prefix>-<its created_at stamp>.json`` (default prefix: a LoCoMo run's
    ``locomo-<mode>``)."""
    folder.mkdir(parents=True, exist_ok=True)
    stamp = datetime.fromisoformat(report["created_at"]).strftime("%Y%m%d-%H%M%S")
    path = folder / (name or f"{prefix or 'locomo-' + report['settings']['mode']}-{stamp}.json")
    path.write_text(json.dumps(report, indent=1, ensure_ascii=False), encoding="utf-8")
    return path


def list_reports(folder: Path, pattern: str = "*.json") -> list[Path]:
    return sorted(folder.glob(pattern), key=lambda p: p.stat().st_mtime, reverse=True) if folder.exists() else []


def readable_reports(folder: Path, pattern: str = "*.json") -> Iterator[dict]:
    """The saved reports matching ``pattern``, newest first; a damaged file is passed over (the page shows the rest)."""
    for path in list_reports(folder, pattern):
        try:
            report = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            continue
        if isinstance(report, dict):
            yield report


def load_report(path: str | Path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))
