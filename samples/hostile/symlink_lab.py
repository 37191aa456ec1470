"""Hostile submission: a submission folder whose lab folder is a symbolic link to the answers.

This file is not the attack: ``SETUP(student_dir, repo_root)`` is. It makes the student's
folder a "whole copy of the release" whose ``labs/week1_strides`` is a symbolic link to the
course's ``reference_impl/`` (or, with ``target``, to another student's folder), and removes
the top-level ``strides.py`` so that the grader looks in ``labs/week1_strides/``. The
grader's private copy skips a lab *file* that is a link (``p.is_symlink()``), but not a
regular file reached through a linked *folder*: it copies the reference engine into the
worker's folder, where the guard allows reading it, and the student gets full marks. (Graded
as a plain ``strides.py``, without SETUP, this file is a skeleton that scores 0.) The grader
must not follow links out of a submission (resolve each copied file and keep it only if it
lies inside the student's own folder), and the score is 0.
"""

from pathlib import Path


def SETUP(student_dir: Path, repo_root: Path, target: Path | None = None) -> None:
    """Turn ``student_dir`` into a course copy whose lab folder links to ``target``."""
    target = target or repo_root / "reference_impl"
    lab = student_dir / "labs" / "week1_strides"
    lab.parent.mkdir(parents=True, exist_ok=True)
    lab.symlink_to(target.resolve(), target_is_directory=True)
    (student_dir / "strides.py").unlink(missing_ok=True)  # else it is graded instead


def arange(*args, **kwargs):
    raise NotImplementedError("arange (Task 1.1)")
