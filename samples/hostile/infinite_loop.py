"""Hostile submission: an endless loop inside ``arange``, which every case calls first.

The loop also swallows the worker's alarm (``except BaseException``), so only the runner's
watchdog can stop it. The grader must stop each case at its time limit, stop starting cases
once the student's time budget is spent, score 0, and grade every other student normally.
"""


def arange(*args, **kwargs):
    while True:
        try:
            while True:
                pass
        except BaseException:  # noqa: B036 - the alarm too: only the watchdog gets out
            pass
