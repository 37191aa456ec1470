"""Hostile submission: allocates far more memory than any case needs.

``arange`` first tries to lift its own memory limit (``resource.setrlimit``; root could),
then allocates 1 GiB blocks, up to 8 GiB. The grader must refuse the new limit, let the
worker's address-space limit turn the allocation into a ``MemoryError``, score 0, and leave
the machine (and every other student) unharmed.
"""

import resource

_first = True


def arange(*args, **kwargs):
    global _first
    try:
        resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY,) * 2)
    except (OSError, ValueError):  # the guard refuses it (a PermissionError)
        pass
    if not _first:  # the big allocation once; then fail at once (no page is touched)
        return bytearray(8 * 1024**3)
    _first = False
    blocks = [bytearray(1024**3) for _ in range(8)]
    return len(blocks)
