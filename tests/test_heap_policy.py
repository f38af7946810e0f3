"""While an analysis runs, the collector skips full collections (young ones wait for more new
objects), and the recursion limit and thread stack are raised; the caller's settings come back,
also after analyses overlapping in threads."""

import gc
import sys
import threading
from pathlib import Path

import pytest

import staticflops
from staticflops.diagnostics import AnalysisError

MLP = Path("samples/mlp.py")


@pytest.fixture()
def own_thresholds():
    before = gc.get_threshold()
    gc.set_threshold(500, 5, 7)  # a caller's own, unusual settings
    yield (500, 5, 7)
    gc.set_threshold(*before)


def _reader(seen: list, wait=None):
    def read(name: str) -> bytes:
        seen.append(gc.get_threshold())  # called while the analysis runs
        if wait is not None:
            wait()
        return Path(name).read_bytes()
    return read


def test_full_collections_wait_during_the_analysis_and_settings_come_back(own_thresholds):
    seen = []
    report = staticflops.analyze(MLP, inputs=["1x784"], reader=_reader(seen))
    assert report.totals.params > 0
    # the youngest generation collected after 10,000 new objects (the caller's 500 raised, as
    # api._YOUNG_AFTER says), the middle one as the caller set it, full collections deferred
    assert seen and all(t == (10_000, 5, 1000) for t in seen)
    assert gc.get_threshold() == own_thresholds


def test_settings_come_back_after_an_error(own_thresholds):
    with pytest.raises(AnalysisError):
        staticflops.analyze(MLP)  # no --input: an error inside the analysis
    assert gc.get_threshold() == own_thresholds


def test_overlapping_analyses_in_threads_restore_the_callers_settings(own_thresholds):
    both_reading = threading.Barrier(2, timeout=30)
    seen, errors = [], []

    def run():
        try:
            staticflops.analyze(MLP, inputs=["1x784"], reader=_reader(seen, both_reading.wait))
        except Exception as error:  # reported below
            errors.append(error)

    limits = sys.getrecursionlimit(), threading.stack_size()
    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(seen) >= 2 and all(t == (10_000, 5, 1000) for t in seen)  # both inside the policy at once
    assert gc.get_threshold() == own_thresholds
    # each analysis raised them to 20,000 frames and a 512 MiB stack; the second one to start
    # used to save the first one's raised values and put them back last
    assert (sys.getrecursionlimit(), threading.stack_size()) == limits
