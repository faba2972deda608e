"""The collector pause of bulk steps: counted across steps, and the previous state restored."""

from __future__ import annotations

import gc
import threading

from gpuscout.gc_pause import MIN_OFFERS, collection_paused


def test_paused_for_a_big_step_and_enabled_again_after_the_last() -> None:
    assert gc.isenabled()
    with collection_paused(MIN_OFFERS):
        assert not gc.isenabled()
        with collection_paused(MIN_OFFERS):
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer step still runs
    assert gc.isenabled()


def test_a_small_step_is_not_paused_and_an_error_still_restores() -> None:
    with collection_paused(MIN_OFFERS - 1):
        assert gc.isenabled()
    try:
        with collection_paused(MIN_OFFERS):
            raise ValueError("a failed step")
    except ValueError:
        pass
    assert gc.isenabled()


def test_a_collector_disabled_before_stays_disabled() -> None:
    gc.disable()
    try:
        with collection_paused(MIN_OFFERS):
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_overlapping_steps_in_threads_enable_it_once_both_end() -> None:
    inside, release = threading.Event(), threading.Event()

    def other_step() -> None:
        with collection_paused(MIN_OFFERS):
            inside.set()
            release.wait(5)

    worker = threading.Thread(target=other_step)
    with collection_paused(MIN_OFFERS):
        worker.start()
        inside.wait(5)
    assert not gc.isenabled()  # the other thread's step is still running
    release.set()
    worker.join(5)
    assert gc.isenabled()
