"""The wall around submitted code: each worker runs inside bubblewrap.

An audit hook (``sandbox.py``) lives in the same process as the code it watches, so that
code can patch whatever the hook reads, and native code raises no audit events at all. The
boundary is therefore the operating system. ``bwrap`` (https://github.com/containers/
bubblewrap, Debian package ``bubblewrap``) starts the worker in new user, pid, net, ipc, uts
and mount namespaces, as uid and gid 65534, with a file system built for it:

- read-only: ``/usr`` (and the ``/bin``, ``/lib`` links), the dynamic linker's cache, the
  Python installation and its site-packages, and this ``autograder`` package;
- hidden inside those, under empty folders: the packages the lab forbids (torch in week 1),
  the hidden cases (except in the worker that runs them), and the oracle cache wherever it is;
- writable: ``/home/student`` (the submission's private copy, its working folder and
  $HOME), ``/tmp`` and ``/dev/shm``, each a fresh tmpfs with a size limit, gone with the worker;
- absent: everything else, the reference engine, other students, the grader's outputs, the
  course's git history and the network included.

The root of that file system is read-only (``--remount-ro /``): the folders bwrap makes to
mount things on (the course's folder on PYTHONPATH, say) are no place to plant a module, and a
folder that hides something is an empty, read-only tmpfs of a few KB. ``/proc/sys`` and the
other kernel settings under ``/proc`` are bound read-only too.

**A grader running as root** (a container, Gradescope's ``run_autograder``): bwrap maps the
sandbox's uid 65534 to the grader's own uid outside, and the kernel lets a process whose real
uid is 0 write ``/proc/sys`` (``kernel.core_pattern`` runs a command as root at the next
crash) whatever its capabilities. So a root grader starts bwrap as uid and gid 65534
(``nobody``) outside too (``launched``, and ``launch.py`` which runs first): it makes, in a
mount namespace of its own, a *view* where each folder bwrap binds is reachable by that user
(Python under ``/root`` is not), then drops to 65534 and execs bwrap. Where that cannot be
done (a container without CAP_SYS_ADMIN), the worker stays root outside behind a read-only
``/proc/sys`` and no capabilities; ``describe()`` says which, and every report records it.

``--die-with-parent`` and the pid namespace end the whole process tree with the worker, and
a seccomp filter refuses to create processes at all (threads are allowed), to join or make
namespaces, to mount, to trace, and a few more kernel doors a worker never needs. The runner
adds rlimits (address space, CPU time, file size, open files) before ``bwrap`` starts, and
they hold for everything inside.

Where bubblewrap cannot run (macOS, a container that forbids user namespaces), a learner's own
check runs with the guard alone, and ``torchlab grade`` refuses unless told
``--unsafe-no-sandbox``. Each report records which isolation it was graded under.
"""

from __future__ import annotations

import atexit
import ctypes
import functools
import json
import os
import platform
import select
import shutil
import site
import struct
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

BUBBLEWRAP = "bubblewrap"
GUARD_ONLY = "none (the audit-hook guard only)"
NOBODY = 65534  # the uid and gid the worker has inside the sandbox
WORK = "/home/student"  # the worker's folder inside: the submission's copy, cwd and $HOME
TMPFS_MB = {WORK: 64, "/tmp": 64, "/dev/shm": 16}
# Kernel settings a process whose uid is 0 outside could write: bound read-only over /proc.
PROC_READ_ONLY = ("sys", "sysrq-trigger", "irq", "bus", "fs", "driver", "acpi", "scsi")


@dataclass
class Jail:
    """One bwrap invocation: the command prefix and the descriptors it must inherit."""

    argv: list[str]
    pass_fds: list[int] = field(default_factory=list)
    owned_fds: list[int] = field(default_factory=list)  # opened by build(): close() shuts them
    # A root grader's view: (host folder, writable) for each bind routed through it.
    view: list[tuple[str, bool]] = field(default_factory=list)

    def close(self) -> None:
        """Close what build() opened, once. Never the caller's ``keep_fds``: closing a number
        twice could shut a descriptor another thread has just been given that number."""
        for fd in self.owned_fds:
            os.close(fd)
        self.owned_fds = []


def readable(fd: int, timeout: float | None) -> bool:
    """Whether ``fd`` has something to read (or was closed) within ``timeout`` seconds (None:
    wait). With poll, as ``select`` refuses descriptor numbers past 1024, which a grader
    process that has run many worlds of gloo ranks can reach."""
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLPRI | select.POLLHUP | select.POLLERR)
    return bool(poller.poll(None if timeout is None else max(0.0, timeout) * 1000))


LAUNCH = str(Path(__file__).resolve().with_name("launch.py"))


def launched(
    argv: list[str],
    jail: Jail | None = None,
    rlimits: dict[str, int] | None = None,
    nproc_room: int = 0,
) -> list[str]:
    """``argv`` started through ``launch.py``, a fresh interpreter that sets ``rlimits`` (and
    for a grader that is not root RLIMIT_NPROC with ``nproc_room`` to spare), enters a root
    grader's view (``jail.view``: see the module docstring) and execs ``argv``. Never Python
    in a forked copy of the grader (``preexec_fn``): launch.py says why."""
    spec: dict[str, object] = {"rlimits": rlimits or {}, "nproc_room": nproc_room}
    if jail is not None and jail.view:
        spec.update(view=jail.view, view_dir=_view_dir())
    if not (rlimits or nproc_room or jail is not None and jail.view):
        return list(argv)
    return [sys.executable, "-I", "-S", LAUNCH, json.dumps(spec), "--", *argv]


@functools.cache
def bubblewrap_problem() -> str | None:
    """Why bubblewrap cannot run here, in one line; None when it can (tried once, ~10 ms)."""
    exe = shutil.which("bwrap")
    if exe is None:
        return "bubblewrap (bwrap) is not installed: scripts/setup.sh installs it (Debian)"
    if sys.platform != "linux":
        return f"bubblewrap needs Linux, this is {sys.platform}"
    probe = build([sys.executable, "-c", "import sys; sys.exit(7)"], files={}, hide=[])
    try:
        run = subprocess.run(
            launched(probe.argv, probe),
            pass_fds=probe.pass_fds,
            capture_output=True,
            text=True,
            timeout=30,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bubblewrap could not start: {exc}"
    finally:
        probe.close()
    if run.returncode != 7:
        why = (run.stderr.strip().splitlines() or ["no message"])[-1]
        return f"bubblewrap cannot run here ({why}); user namespaces may be disabled"
    return None


def _python_roots() -> list[str]:
    """Everything the interpreter and its packages live in, real paths, outermost only."""
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    roots.update(site.getsitepackages())
    user_site = site.getusersitepackages()
    if user_site and user_site in sys.path:
        roots.add(user_site)
    roots.add(os.path.dirname(os.path.realpath(sys.executable)))
    for name in ("stdlib", "platstdlib", "purelib", "platlib"):
        roots.add(sysconfig.get_path(name))
    return _outermost(os.path.realpath(r) for r in roots if r and os.path.isdir(r))


def _outermost(paths: object) -> list[str]:
    out: list[str] = []
    for p in sorted(set(paths), key=len):  # type: ignore[arg-type]
        if not any(p == o or p.startswith(o.rstrip("/") + "/") for o in out):
            out.append(p)
    return sorted(out)


def autograder_dir() -> str:
    return os.path.dirname(os.path.realpath(__file__))


def _system_binds() -> list[str]:
    """/usr read-only, and /bin, /lib... as the host has them (links on merged-/usr)."""
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    # /etc/alternatives: Debian's c++ and cc are links through it (a native build needs them)
    for path in ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime", "/etc/alternatives"):
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    return args


def build(
    command: list[str],
    files: dict[str, Path],
    hide: list[str],
    env: dict[str, str] | None = None,
    keep_fds: tuple[int, ...] = (),
    seccomp: bool = True,
    work: str | None = None,
    ro_binds: list[str] | None = None,
    mount_caps: bool = False,
    as_pid_1: bool = False,
) -> Jail:
    """The bwrap command that runs ``command`` in a sandbox (start it as
    ``launched(jail.argv, jail, ...)``).

    ``files``: name -> host file, copied into the worker's folder (the submission's private copy).
    ``hide``: host folders to cover with an empty read-only tmpfs where they fall inside what is
    bound (forbidden packages, hidden cases, the oracle cache). ``keep_fds`` stay open inside
    (the result pipe). ``seccomp=False``: no filter for the whole sandbox (the fork server installs
    it in each child it forks, see zygote.py). ``work``: a host folder to bind, writable, as
    the worker's folder instead of a fresh tmpfs (a native build's folder, see native.py).
    ``ro_binds``: more host folders visible read-only at their own paths (a precompiled
    header the build includes). ``mount_caps``: keep CAP_SYS_ADMIN (and CAP_SETPCAP) inside the
    sandbox's own user namespace, for the fork server, which mounts each child's fresh folders
    and drops them in the child before any submitted code runs (zygote.py). ``as_pid_1``: the
    command is the sandbox's pid 1 (no bwrap init beside it: an init of the same uid, without the
    seccomp filter, would be open to the fork server's children through /proc/1).
    """
    jail = Jail([])
    as_nobody = root_mode() == "view"

    def bind(source: str, dest: str, writable: bool = False) -> list[str]:
        if as_nobody and not _system_path(source):
            jail.view.append((source, writable))
            source = _view_dir() + source
        return ["--bind" if writable else "--ro-bind", source, dest]

    args = ["bwrap", "--unshare-all", "--unshare-user"]
    if _supports("--disable-userns"):
        args.append("--disable-userns")  # no nested user namespace: no way to regain mounts
    args += ["--uid", str(NOBODY), "--gid", str(NOBODY), "--hostname", "torchlab"]
    if mount_caps:
        args += ["--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SETPCAP"]
    if as_pid_1:
        args.append("--as-pid-1")
    args += ["--die-with-parent", "--new-session", "--clearenv"]
    args += _system_binds()
    args += ["--proc", "/proc", "--dev", "/dev"]
    for name in PROC_READ_ONLY:  # the kernel's settings: never written from inside
        if os.path.exists(f"/proc/{name}"):
            args += ["--ro-bind", f"/proc/{name}", f"/proc/{name}"]
    for mount, mb in TMPFS_MB.items():  # first: a bind below may sit inside one of them
        if mount == WORK and work is not None:
            args += bind(work, WORK, writable=True)
            continue
        args += ["--size", str(mb * 2**20), "--perms", "1777", "--tmpfs", mount]
    bound = _python_roots() + [autograder_dir()]
    for root in _outermost(bound):
        args += bind(root, root)
    for folder in ro_binds or []:
        args += bind(folder, folder)
    for folder in sorted({os.path.realpath(h) for h in hide}):
        if os.path.isdir(folder) and any(_inside(folder, b) for b in bound):
            # an empty folder where the answers were: read-only, a few KB of the host's memory
            args += ["--size", "4096", "--perms", "0555", "--tmpfs", folder]
            args += ["--remount-ro", folder]
    for name, path in files.items():
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        jail.pass_fds.append(fd)
        args += ["--perms", "0644", "--file", str(fd), f"{WORK}/{name}"]
    for name, text in _identity().items():  # honest code may ask who it is (getpass)
        fd = memfd(name, text.encode())
        jail.pass_fds.append(fd)
        args += ["--perms", "0644", "--file", str(fd), f"/etc/{name}"]
    filt = seccomp_filter() if seccomp else None
    if filt is not None:
        fd = memfd("torchlab-seccomp", filt)
        jail.pass_fds.append(fd)
        args += ["--seccomp", str(fd)]
    for key, value in (env or {}).items():
        args += ["--setenv", key, value]
    # Last: nothing outside the tmpfs folders above (and a build's folder) is writable, not
    # even the folders bwrap made to mount things on.
    # bwrap's --remount-ro is not recursive: /dev (its own tmpfs) is made read-only too.
    args += ["--remount-ro", "/dev", "--remount-ro", "/"]
    args += ["--chdir", WORK, "--"]
    jail.argv = args + command
    jail.owned_fds = list(jail.pass_fds)
    jail.pass_fds += list(keep_fds)
    return jail


# ---- a grader running as root --------------------------------------------------------------


def _system_path(path: str) -> bool:
    """Folders everyone may read on any system: bound as they are, never through the view."""
    return any(_inside(path, top) for top in ("/usr", "/etc"))


@functools.cache
def _view_dir() -> str:
    """An empty folder, made once per grader process, that each root-started bwrap mounts its
    private view on (in its own mount namespace, so the host never sees what is inside)."""
    folder = tempfile.mkdtemp(prefix="torchlab-view-")
    os.chmod(folder, 0o755)
    atexit.register(lambda: os.path.isdir(folder) and os.rmdir(folder))
    return folder


def libc_check(result: int, what: str) -> None:
    """Raise OSError, with errno's words, when a C library call (made with use_errno) failed."""
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


@functools.cache
def root_mode() -> str:
    """How workers run when the grader is root: "view" (uid 65534 outside, see the module
    docstring), "root" (uid 0 outside: /proc/sys read-only and no capabilities are what
    stands), or "" when the grader is not root."""
    if os.geteuid() != 0 or shutil.which("bwrap") is None or sys.platform != "linux":
        return ""
    probe = Jail([])
    python = os.path.dirname(os.path.realpath(sys.executable))
    probe.view = [(python, False)]
    _view_dir()  # made here, in the grader: the child only mounts on it
    argv = ["bwrap", "--unshare-all", "--unshare-user", "--uid", str(NOBODY)]
    argv += ["--gid", str(NOBODY), *_system_binds(), "--ro-bind", _view_dir() + python, python]
    try:
        run = subprocess.run(
            launched([*argv, "--", "/bin/sh", "-c", f"test -d {python}"], probe),
            capture_output=True,
            timeout=30,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return "root"
    return "view" if run.returncode == 0 else "root"


def describe(kind: str) -> str:
    """The isolation a report records: ``kind`` and, for a root grader, what stands."""
    mode = root_mode() if kind == BUBBLEWRAP else ""
    if mode == "view":
        return f"{kind} (the grader runs as root; workers run as uid {NOBODY} outside too)"
    if mode == "root":
        return (
            f"{kind} (the grader runs as root and workers stay root outside: /proc/sys "
            "read-only, no capabilities; run the grader as another user to do better)"
        )
    return kind


def _identity() -> dict[str, str]:
    """/etc/passwd and /etc/group naming the one user inside: the student."""
    return {
        "passwd": f"student:x:{NOBODY}:{NOBODY}:student:{WORK}:/bin/sh\n",
        "group": f"student:x:{NOBODY}:\n",
    }


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


@functools.cache
def _supports(option: str) -> bool:
    try:
        text = subprocess.run(["bwrap", "--help"], capture_output=True, text=True).stdout
    except OSError:
        return False
    return option in text


def memfd(name: str, data: bytes) -> int:
    """A read-only descriptor holding ``data`` (bwrap reads the filter from it)."""
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create(name, 0)
    else:  # pragma: no cover - Linux always has memfd_create
        fd, tmp = tempfile.mkstemp()
        os.unlink(tmp)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


# ---- seccomp -------------------------------------------------------------------------------
# A classic-BPF program over ``struct seccomp_data`` (linux/seccomp.h): nr at offset 0, arch
# at 4, args[i] at 16 + 8 i. The kernel runs it on every system call the worker makes.

_ARCH = {  # AUDIT_ARCH_* from linux/audit.h, and the numbers of the calls refused
    "x86_64": (
        0xC000003E,
        {
            "fork": 57,
            "prlimit64": 302,
            "vfork": 58,
            "clone": 56,
            "clone3": 435,
            "unshare": 272,
            "setns": 308,
            "mount": 165,
            "umount2": 166,
            "pivot_root": 155,
            "chroot": 161,
            "ptrace": 101,
            "process_vm_readv": 310,
            "process_vm_writev": 311,
            "keyctl": 250,
            "add_key": 248,
            "request_key": 249,
            "bpf": 321,
            "perf_event_open": 298,
            "userfaultfd": 323,
            "kexec_load": 246,
            "init_module": 175,
            "finit_module": 313,
            "io_uring_setup": 425,
            "open_tree": 428,
            "move_mount": 429,
            "fsopen": 430,
            "fsmount": 432,
            # SysV IPC and POSIX message queues outlive a process: the fork server's children
            # share one IPC namespace, so one run could leave a note for the next.
            "shmget": 29,
            "shmat": 30,
            "shmctl": 31,
            "semget": 64,
            "semop": 65,
            "semctl": 66,
            "msgget": 68,
            "msgsnd": 69,
            "msgrcv": 70,
            "msgctl": 71,
            "semtimedop": 220,
            "mq_open": 240,
        },
    ),
    "aarch64": (
        0xC00000B7,
        {
            "clone": 220,
            "prlimit64": 261,
            "clone3": 435,
            "unshare": 97,
            "setns": 268,
            "mount": 40,
            "umount2": 39,
            "pivot_root": 41,
            "chroot": 51,
            "ptrace": 117,
            "process_vm_readv": 270,
            "process_vm_writev": 271,
            "keyctl": 219,
            "add_key": 217,
            "request_key": 218,
            "bpf": 280,
            "perf_event_open": 241,
            "userfaultfd": 282,
            "kexec_load": 104,
            "init_module": 105,
            "finit_module": 273,
            "io_uring_setup": 425,
            "open_tree": 428,
            "move_mount": 429,
            "fsopen": 430,
            "fsmount": 432,
            "mq_open": 180,
            "msgget": 186,
            "msgctl": 187,
            "msgrcv": 188,
            "msgsnd": 189,
            "semget": 190,
            "semctl": 191,
            "semtimedop": 192,
            "semop": 193,
            "shmget": 194,
            "shmctl": 195,
            "shmat": 196,
        },
    ),
}
_CLONE_THREAD = 0x00010000
_EPERM, _ENOSYS = 1, 38
_RET_ALLOW, _RET_ERRNO, _RET_KILL = 0x7FFF0000, 0x00050000, 0x80000000
_LD_ABS, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06


def seccomp_filter(machine: str | None = None) -> bytes | None:
    """The filter as bytes for ``bwrap --seccomp``; None on an architecture we have no
    table for (the namespaces still hold there).

    Creating a process is refused (EPERM): ``clone`` without CLONE_THREAD, ``fork``,
    ``vfork``; ``clone3`` gets ENOSYS, so the C library falls back to ``clone``, whose flags
    a filter can read. Threads stay possible (NumPy and torch start them).
    """
    machine = machine or platform.machine()
    if machine not in _ARCH:
        return None
    arch, nr = _ARCH[machine]
    prog: list[tuple[int, int, int, int | str]] = []  # (code, jt, jf, k); labels resolved below
    jumps: list[tuple[int, str, str]] = []

    def op(code: int, k: int | str = 0, jt: str = "", jf: str = "") -> None:
        if jt or jf:
            jumps.append((len(prog), jt, jf))
        prog.append((code, 0, 0, k))

    op(_LD_ABS, 4)  # arch
    op(_JEQ, arch, jt="nr", jf="kill")  # a foreign ABI (i386 on x86_64) has other numbers
    labels = {"nr": len(prog)}
    op(_LD_ABS, 0)  # the system call number
    if machine == "x86_64":
        op(_JGE, 0x40000000, jt="eperm")  # the x32 ABI
    op(_JEQ, nr["clone3"], jt="enosys")
    op(_JEQ, nr["clone"], jt="clone")
    op(_JEQ, nr["prlimit64"], jt="prlimit")
    for name, number in nr.items():
        if name not in ("clone", "clone3", "prlimit64"):
            op(_JEQ, number, jt="eperm")  # false: fall through to the next test
    op(_RET, _RET_ALLOW)
    labels["clone"] = len(prog)
    op(_LD_ABS, 16)  # args[0], low 32 bits: the clone flags
    op(_JSET, _CLONE_THREAD, jf="eperm")  # a thread: fall through to allow
    op(_RET, _RET_ALLOW)
    # prlimit64 on another process (the fork server is the same uid: lowering its limits
    # would break every later run); pid 0, this process, is what setrlimit uses.
    labels["prlimit"] = len(prog)
    op(_LD_ABS, 16)  # args[0], low 32 bits: the pid
    op(_JEQ, 0, jf="eperm")
    op(_LD_ABS, 20)  # args[0], high 32 bits
    op(_JEQ, 0, jf="eperm")
    op(_RET, _RET_ALLOW)
    labels["eperm"] = len(prog)
    op(_RET, _RET_ERRNO | _EPERM)
    labels["enosys"] = len(prog)
    op(_RET, _RET_ERRNO | _ENOSYS)
    labels["kill"] = len(prog)
    op(_RET, _RET_KILL)

    out = [list(p) for p in prog]
    for at, jt, jf in jumps:
        for slot, label in ((1, jt), (2, jf)):
            offset = labels[label] - at - 1 if label else 0
            if not 0 <= offset <= 255:
                raise ValueError(f"seccomp jump to {label} out of range")
            out[at][slot] = offset
    return b"".join(struct.pack("=HBBI", c, jt, jf, k) for c, jt, jf, k in out)  # type: ignore[misc]
