"""Torch's side of each week: ``TORCH_EXTRAS``, the trusted torch constructions of things torch
has no single function for (a row-aligned layout in week 1, the trace of a call in week 2b).

The oracle (``oracle.torch_lib``) hands them to the cases as ``lib.<name>`` when it runs them
with torch. They are answers worked with torch, so no worker can read this folder: the runner
hides it like the notebook's helpers, and a week whose module may use torch would otherwise
import its answers from here.
"""
