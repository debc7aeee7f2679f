"""Helpers shared by the search, citation-scanner and reconstruction tests."""

from __future__ import annotations

import sys
import threading
import time


def observed_while_running(fn) -> int:
    """How many times another thread got to run while ``fn`` ran. With a 10 s switch
    interval the counter thread runs during ``fn`` only if ``fn`` releases the GIL."""
    ticks = 0
    stop = threading.Event()

    def counter():
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            time.sleep(0)

    t = threading.Thread(target=counter)
    switch = sys.getswitchinterval()
    sys.setswitchinterval(10.0)
    try:
        t.start()
        time.sleep(0.05)
        before = ticks
        fn()
        observed = ticks - before
    finally:
        stop.set()
        sys.setswitchinterval(switch)
        t.join()
    return observed
