"""Offline retrieval-quality evaluation on LoCoMo-format data (loader, ingest, metrics, runner)."""

from memory.evaluation.locomo import CATEGORIES, load
from memory.evaluation.runner import (
    EvalOptions,
    eval_service,
    list_reports,
    load_report,
    reports_dir,
    run_locomo,
    save_report,
)

__all__ = [
    "CATEGORIES",
    "EvalOptions",
    "eval_service",
    "list_reports",
    "load",
    "load_report",
    "reports_dir",
    "run_locomo",
    "save_report",
]
