"""The course's weeks: where each lab lives and which module the learner edits."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Week:
    name: str  # "week1": the name cases and the CLI use
    folder: str  # the lab folder, under labs/ or cpp_labs/ (see ``track``)
    module: str  # the file the learner edits, without .py
    title: str
    forbid_modules: tuple[str, ...] = ("torch", "functorch", "torchgen")  # engines do the work
    native: bool = False  # C++ labs load native code (ctypes, extension modules)
    preload: tuple[str, ...] = ("numpy",)  # imported before the guard: the lab's own tools
    # "module:function" the fork server calls once after preloading, before it forks any
    # worker: first-call set-up inside the lab's libraries, paid once instead of per run.
    warm_up: str = ""
    # "module:function" each worker calls after the fork, before the guard goes in: what a
    # run needs that cannot be inherited and that the guard would refuse later (week 7 starts
    # its rank threads: threads do not survive a fork, and submitted code may start none).
    before_guard: str = ""
    # Where the expected answers come from: "torch" (run in the oracle on every cache miss) or
    # "pinned" (autograder/truth/<week>_pinned.json, for a week whose truth lives on a GPU;
    # see autograder/pinning.py).
    truth: str = "torch"
    # C++ the learner edits beside the module (its source has // BEGIN SOLUTION regions, like
    # the Python's), built by autograder/native.py into lib<native_library> before the worker
    # runs.
    native_sources: tuple[str, ...] = ()
    native_library: str = ""
    # The compiler's optimisation flags for that library; empty: native.CFLAGS (-O1, since
    # parsing torch's headers is most of a build). A lab timed by a benchmark asks for more.
    native_cflags: tuple[str, ...] = ()
    # Files the learner is given and does not edit (no solution region): the grader always
    # takes them from the course's own copy, never from a submission, so what a case observes
    # through them (a native week's Python wrapper) is the course's code.
    given: tuple[str, ...] = ()

    @property
    def track(self) -> str:
        """The top-level folder the lab lives in: ``cpp_labs`` for the C++ track (a week whose
        learner edits C++), ``labs`` for the Python labs."""
        return "cpp_labs" if self.native_sources else "labs"

    def lab_dir(self, root: Path) -> Path:
        """The lab's folder in the course copy at ``root``: ``root/<track>/<folder>``."""
        return root / self.track / self.folder

    @property
    def fork_server(self) -> bool:
        """Graded in children of a server that imported torch once (see zygote.py): a fresh
        worker would pay torch's import (about 1.5 s) for every submission."""
        return "torch" in self.preload


# What week 7's and 7c's fork servers load and run before any worker (torch.distributed, DDP,
# the thread worlds' machinery), and the pool of rank threads each worker starts before the
# guard (a learner's code gets no way to start threads).
DISTRIBUTED: dict[str, object] = dict(
    preload=(
        "numpy",
        "torch",
        "torch.distributed",
        "torch.nn.parallel",
        "torch.testing._internal.distributed.multi_threaded_pg",
    ),
    warm_up="autograder.weeks.week7.warm_up:warm_up",
    before_guard="autograder.weeks.week7.world:start_worker_pool",
)

WEEKS: dict[str, Week] = {
    "week1": Week("week1", "week1_strides", "strides", "Strides and views"),
    "week2": Week("week2", "week2_dispatcher", "dispatcher", "The dispatcher"),
    # Part B of week 2: the learner's module drives torch's own dispatcher, so torch is
    # allowed (and preloaded: see Week.fork_server).
    "week2b": Week(
        "week2b",
        "week2b_real_dispatch",
        "real_dispatch",
        "Driving the real dispatcher",
        forbid_modules=(),
        # torch, and what custom ops, opcheck and torch.compile import on first use (about
        # 1 s of sympy and dynamo): the fork server pays it once instead of every run.
        preload=(
            "numpy",
            "torch",
            "torch._dynamo",
            "torch._library.custom_ops",
            "torch._functorch.aot_autograd",
            "torch._subclasses.fake_tensor",
            "torch.testing._internal.optests",
            "torch.testing._internal.logging_tensor",
            "torch._dynamo.testing",  # what opcheck's AOT test imports: another 0.9 s
            "torch._inductor.lowering",
            "torch.export._trace",
        ),
        warm_up="autograder.weeks.week2b.warm_up:warm_up",
    ),
    # Part C of week 2: the same operator registered from C++ (the C++ track's first lab).
    "week2c": Week(
        "week2c",
        "week2c_cpp_ops",
        "cpp_ops",
        "The dispatcher from C++",
        forbid_modules=(),
        native=True,
        preload=(
            "numpy",
            "torch",
            "torch._dynamo",
            "torch._subclasses.fake_tensor",
            "torch.profiler",
        ),
        native_sources=("cpp_ops.cpp",),
        given=("cpp_ops.py",),
        native_library="torchlab_cpp_ops",
    ),
    "week3": Week("week3", "week3_autograd", "autograd", "The autograd engine"),
    # The allocator is CUDA's and this course has no GPU: its answers are pinned (pinning.py).
    "week4": Week(
        "week4",
        "week4_allocator",
        "allocator",
        "The caching allocator",
        preload=("sortedcontainers",),
        truth="pinned",
    ),
    # Week 4 in C++ (the C++ track): the same allocator's policy in C++, exposed through
    # pybind11 with week 4's Python API, graded by week 4's own cases (the ones that do not
    # ask for week 4's Python-only parts) against week 4's pinned truth.
    "week4c": Week(
        "week4c",
        "week4c_cpp_allocator",
        "cpp_allocator",
        "The caching allocator in C++",
        forbid_modules=(),  # the extension links against libtorch, so torch is loaded first
        native=True,
        preload=("numpy", "torch"),
        truth="pinned",
        native_sources=("cpp_allocator.cpp",),
        given=("cpp_allocator.py",),
        native_library="torchlab_cpp_allocator",
        native_cflags=("-O2",),  # its speed is part of the lab (its chapter, section 7)
    ),
    # The first native lab: the learner's C++ (labdev.cpp) is built before the worker starts
    # and loaded inside it; torch runs in the worker, behind the OS sandbox.
    "week5": Week(
        "week5",
        "week5_privateuse1",
        "privateuse1",
        "A new device: PrivateUse1 and meta",
        forbid_modules=(),
        native=True,
        preload=(
            "numpy",
            "torch",
            "torch._dynamo",
            "torch._library.custom_ops",
            "torch._subclasses.fake_tensor",
            "torch.utils.backend_registration",
        ),
        native_sources=("labdev.cpp",),
        native_library="labdev",
    ),
    # Week 6, torch.compile for a new chip. Part 1: TorchDynamo (bytecode to FX graphs,
    # breaks, guards, recompiles), each answer compared with real Dynamo. The learner's
    # module drives torch.compile, so torch and dynamo are preloaded like week 2b's.
    "week6": Week(
        "week6",
        "week6_compile",
        "compile",
        "torch.compile: Dynamo, AOTAutograd, Inductor",
        forbid_modules=(),
        preload=(
            "numpy",
            "torch",
            "torch._dynamo",
            "torch._dynamo.testing",
            "torch._functorch.aot_autograd",
            "torch.fx",
        ),
        warm_up="autograder.weeks.week6.warm_up:warm_up",
    ),
    # Week 7, torch.distributed for a new chip: the learner's collective library over the
    # course's interconnect, as a c10d backend that real DDP runs on. Ranks are threads of
    # the worker, started before the guard (``world.start_worker_pool``).
    "week7": Week(
        "week7",
        "week7_c10d",
        "c10d",
        "torch.distributed: a collective library behind c10d",
        forbid_modules=(),
        **DISTRIBUTED,
        # The port over torchrun's store (scripts/torchrun_labccl.py): never graded, and
        # always the course's copy wherever a submission has one.
        given=("multihost.py",),
    ),
    # Week 7 in C++ (the C++ track): the same collective library as a c10d::Backend in
    # cpp_c10d.cpp, graded by week 7's cases of Tasks 7.2-7.4 (point-to-point, collectives,
    # the backend under dist.*, real DDP and FSDP2 on it) against gloo, as week 7's.
    "week7c": Week(
        "week7c",
        "week7c_cpp_c10d",
        "cpp_c10d",
        "torch.distributed in C++: labccl as a c10d::Backend",
        forbid_modules=(),
        native=True,
        **DISTRIBUTED,
        native_sources=("cpp_c10d.cpp",),
        given=("cpp_c10d.py",),
        native_library="torchlab_cpp_c10d",
    ),
}


def get_week(name: str) -> Week:
    """The week called ``name`` ("week1" or just "1"), or a clear error listing the weeks."""
    key = name if name.startswith("week") else f"week{name}"
    if key not in WEEKS:
        raise ValueError(f"there is no week called {name!r}; the weeks are: {', '.join(WEEKS)}")
    return WEEKS[key]
