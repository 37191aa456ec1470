"""Hostile submission: fills the disk with many small files, each far under the size limit.

The runner's only disk limit is ``RLIMIT_FSIZE`` (64 MB per file); nothing caps how many
files the worker makes, nor their total. In every case (1.5 s at a time) the submission
writes 1 KB files into its working folder, which the guard allows (and which the grader must
then delete, file by file), and into ``/tmp/torchlab-escape-many_files/``, which outlives the
grade (the folder and files are made with a ``str`` subclass that the guard's realpath reads
as ``/dev/null``, see ``fspath_trick.py``). A real attack stops at ENOSPC or at the inode
limit; this one stops at 25,000 files (about 100 MB on disk) in each place, so it is safe
to keep (a rerun overwrites the same names). The grader must cap the worker's disk use (a
size-limited tmpfs or quota for its folder, with nothing else writable), and the score is 0.
"""

import os
import time

CAP = 25_000  # files in each place: 1 KB each, about 100 MB of 4 KB blocks
BLOCK = b"x" * 1024
OUTSIDE = "/tmp/torchlab-escape-many_files"


class Sly(str):
    def __getitem__(self, key):
        return "dev/null" if key == slice(1, None) else str.__getitem__(self, key)


_made = {"inside": 0, "outside": 0}


def _fill(where, folder, wrap, seconds):
    deadline = time.monotonic() + seconds
    os.makedirs(wrap(folder), exist_ok=True)
    while _made[where] < CAP and time.monotonic() < deadline:
        for _ in range(min(500, CAP - _made[where])):
            with open(wrap(f"{folder}/f{_made[where]:06d}"), "wb") as f:
                f.write(BLOCK)
            _made[where] += 1


def arange(*args, **kwargs):
    for where, folder, wrap in (("inside", "fill", str), ("outside", OUTSIDE, Sly)):
        try:
            _fill(where, folder, wrap, 0.7)
        except OSError as exc:
            print(f"{where}: {exc}")
    print(f"files made so far: {_made}")
    raise NotImplementedError("arange: filling the disk")
