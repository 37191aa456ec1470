"""Hostile submission: runs code in a sub-interpreter, where the worker's audit hook (added
with ``sys.addaudithook``, which is per interpreter) does not watch.

In the sub-interpreter it copies the reference engine into the worker's own folder, then
imports that copy and delegates everything to it. The guard must refuse the sub-interpreter
("may not import _xxsubinterpreters"), so the import fails and the score is 0.
"""

import _xxsubinterpreters as interpreters
import os
import sys

_ROOT = os.path.dirname(os.path.dirname(sys.modules["autograder"].__file__))
_COPY = os.path.abspath("copied_reference.py")
_CODE = f"""
src = open({os.path.join(_ROOT, "reference_impl", "strides.py")!r}).read()
open({_COPY!r}, "w").write(src)
"""

_interp = interpreters.create()
interpreters.run_string(_interp, _CODE)
with open(_COPY) as f:
    exec(f.read(), globals())
