"""The lab tells the truth (issue #28, item 7): the near-miss band is relative to the threshold, and a hit the cut
drops for another reason (flagged) is never a near miss nor drawn as passed.

Before: near misses were "relevance ≥ threshold − 0.1", so under a calibrated threshold of 0.019 every candidate was
a near miss, and a flagged hit above the threshold counted as one (and the histogram drew it as passed)."""

from __future__ import annotations

from actors import CURATOR

from memory.retrieval.recall import is_near_miss, near_miss_floor
from memory.service import MemoryService

FACTS = ["tea with milk", "green tea every morning", "black coffee", "a walk by the river", "tea ceremony in Kyoto"]


def _seed(svc: MemoryService) -> str:
    user = svc.ensure_user("lab-u")
    ids = [svc.add_memory(user, f).id for f in FACTS]
    svc.flag_memory(ids[1], actor=CURATOR)
    return ids[1]


def test_near_misses_are_a_band_relative_to_the_threshold(plumbing_svc: MemoryService):
    flagged = _seed(plumbing_svc)
    everything = plumbing_svc.recall("lab-u", "tea", threshold=-1.0, mode="vector", log=False).hits
    rels = sorted(h.relevance for h in everything if h.memory_id != flagged)
    for threshold in (0.019, rels[len(rels) // 2] + 1e-6, 0.6):
        result = plumbing_svc.recall("lab-u", "tea", threshold=threshold, mode="vector", log=False)
        expected = {
            h.memory_id for h in result.hits if h.memory_id != flagged and threshold / 2 <= h.relevance < threshold
        }
        assert {h.memory_id for h in result.near_misses} == expected, threshold
        assert near_miss_floor(threshold) == threshold / 2
    low = plumbing_svc.recall("lab-u", "tea", threshold=0.019, mode="vector", log=False)
    assert len(low.near_misses) < len(low.hits)  # not "10 of 10 candidates are near misses"


def test_a_flagged_hit_is_dropped_never_a_near_miss_nor_passed(plumbing_svc: MemoryService):
    flagged = _seed(plumbing_svc)
    result = plumbing_svc.recall("lab-u", "tea", threshold=0.0, mode="vector", log=False)
    hit = next(h for h in result.hits if h.memory_id == flagged)
    assert hit.relevance >= 0.0 and not hit.passed and hit.drop_reason == "flagged"
    assert not is_near_miss(hit, 0.0) and not is_near_miss(hit, hit.relevance + 0.01)
