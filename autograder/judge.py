"""The judge: compare torch's observation with the engine's and explain the first difference.

Messages are written for a learner: plain words, torch's answer first, then theirs, e.g.
``x.t(): stride: torch gives (1, 4), yours gives (4, 1)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from autograder.observe import Observation

# The order in which tensor fields are compared: the most basic difference is reported first.
TENSOR_FIELDS = [
    "shape",
    "dtype",
    "device",
    "stride",
    "storage_offset",
    "is_contiguous",
    "storage_nbytes",
]

PASS, FAIL, NOT_IMPLEMENTED = "pass", "fail", "not implemented"


@dataclass(frozen=True)
class Verdict:
    status: str  # PASS, FAIL or NOT_IMPLEMENTED
    message: str = ""


class _Difference(Exception):
    def __init__(self, message: str, status: str = FAIL) -> None:
        super().__init__(message)
        self.message, self.status = message, status


def judge(expected: Observation, actual: Observation) -> Verdict:
    """PASS when every observation matches; otherwise the first difference in plain words."""
    try:
        _compare(expected, actual, "")
    except _Difference as d:
        return Verdict(d.status, d.message)
    return Verdict(PASS)


def _fmt(v: Any) -> str:
    if isinstance(v, list) and all(isinstance(e, int) and not isinstance(e, bool) for e in v):
        return "(" + ", ".join(map(str, v)) + ("," if len(v) == 1 else "") + ")"
    text = repr(v)
    return text if len(text) <= 80 else text[:77] + "..."


def _what(obs: Observation) -> str:
    """How to name what a side produced, in words: 'a tensor', 'list [1, 2]', 'raised
    IndexError', 'named results (x, x.t())'. Never a raw dictionary."""
    kind = obs.get("kind") if isinstance(obs, dict) else None
    if kind == "tensor":
        return "a tensor"
    if kind == "value":
        value = obs["value"]
        return f"{obs['type']} {_fmt(value) if obs['type'] == 'tuple' else _short(value)}"
    if kind == "raised":
        return f"raised {obs['type']}"
    if isinstance(obs, dict):
        return f"named results ({_short(', '.join(map(str, obs)))})"
    if isinstance(obs, list):
        return f"a list of {len(obs)} results"
    return _fmt(obs)


def _at(path: str, text: str) -> str:
    return f"{path}: {text}" if path else text


def _facts(obs: dict) -> str:
    return ", ".join(map(str, obs.get("facts", []))) or "no numbers"


def _compare(exp: Observation, act: Observation, path: str) -> None:
    act_kind = act.get("kind") if isinstance(act, dict) else None
    exp_kind = exp.get("kind") if isinstance(exp, dict) else None
    reading = act_kind == "raised" and act.get("during") == "reading"
    if act_kind == "raised" and act["type"] == "NotImplementedError":
        if not (exp_kind == "raised" and exp["type"] == "NotImplementedError"):
            needed = " (needed to read your result)" if reading else ""
            message = f"not implemented yet{needed}: {act['message']}"
            raise _Difference(_at(path, message), NOT_IMPLEMENTED)
    if exp_kind == "raised":
        torch_says = f"torch raises {exp['type']} here ({exp['message']})"
        if act_kind != "raised":
            plain = act_kind == "value" and act.get("value") is not None
            returned = f" (it returned {_what(act)})" if plain else ""
            raise _Difference(_at(path, f"{torch_says}; yours did not raise{returned}"))
        if reading:
            raise _Difference(
                _at(
                    path,
                    f"{torch_says}; yours did not raise, and reading its result raised "
                    f"{act['type']}: {act['message']}",
                )
            )
        if act["type"] != exp["type"]:
            raise _Difference(
                _at(path, f"{torch_says}; yours raised {act['type']}: {act['message']}")
            )
        if "facts" in exp and exp["facts"] != act.get("facts", []):
            raise _Difference(
                _at(
                    path,
                    f"torch's {exp['type']} names {_facts(exp)} ({exp['message']}); "
                    f"yours names {_facts(act)} ({act['message']}). The numbers a message "
                    "names, in order, are compared; its wording is not",
                )
            )
        return
    if act_kind == "raised":
        if reading:
            raise _Difference(
                _at(
                    path,
                    f"torch gives {_what(exp)} here; your op returned, but reading its result "
                    f"raised {act['type']}: {act['message']}",
                )
            )
        raise _Difference(
            _at(
                path,
                f"torch gives {_what(exp)} here; your op raised {act['type']}: {act['message']}",
            )
        )
    if exp_kind == "tensor":
        _compare_tensor(exp, act, path)
    elif exp_kind == "value":
        if (
            act_kind != "value"
            or act["type"] != exp["type"]
            or not _same(exp["value"], act["value"])
        ):
            raise _Difference(_at(path, f"torch gives {_what(exp)}, yours gives {_what(act)}"))
    elif isinstance(exp, dict) and exp_kind is None:
        if not isinstance(act, dict) or act_kind is not None:
            raise _Difference(_at(path, f"torch gives {_what(exp)}, yours gives {_what(act)}"))
        for key, sub in exp.items():
            if key not in act:
                raise _Difference(_at(path, f"{key}: missing from your results"))
            _compare(sub, act[key], f"{path}, {key}" if path else key)
    elif isinstance(exp, list):
        _compare_list(exp, act, path)
    elif not _same(exp, act):
        raise _Difference(_at(path, f"torch gives {_fmt(exp)}, yours gives {_fmt(act)}"))


def _compare_list(exp: list, act: Any, path: str) -> None:
    if not isinstance(act, list):
        raise _Difference(_at(path, f"torch gives {_what(exp)}, yours gives {_what(act)}"))
    examples = bool(exp) and all(isinstance(e, dict) and "example" in e for e in exp)
    if len(exp) != len(act):
        raise _Difference(_at(path, f"torch gives {len(exp)} results, yours gives {len(act)}"))
    for i, (e, a) in enumerate(zip(exp, act, strict=True)):
        if examples:
            where = f"example {i + 1} of {len(exp)}, {e['example']}"
            _compare(e["result"], a.get("result") if isinstance(a, dict) else a, where)
        else:
            _compare(e, a, f"{path}[{i}]" if path else f"item {i}")


def _compare_tensor(exp: dict, act: Any, path: str) -> None:
    if not (isinstance(act, dict) and act.get("kind") == "tensor"):
        raise _Difference(_at(path, f"torch returns a tensor here, yours returned {_what(act)}"))
    for name in TENSOR_FIELDS:
        if name in exp and exp[name] != act.get(name):
            raise _Difference(
                _at(
                    path,
                    f"{name}: torch gives {_fmt(exp[name])}, yours gives {_fmt(act.get(name))}",
                )
            )
    if "values" in exp:
        where = _first_value_difference(exp["values"], act.get("values"), ())
        if where is not None:
            index, e, a = where
            at = f" at index {_fmt(list(index))}" if index else ""
            raise _Difference(_at(path, f"values{at}: torch gives {e!r}, yours gives {a!r}"))
    # Anything else a case put beside the tensor's fields (a storage size under its own name,
    # "shares storage with") is compared too: a check the judge skipped would pass every engine.
    for key in exp.keys() - {"kind", "values", *TENSOR_FIELDS}:
        if key not in act:
            raise _Difference(_at(path, f"{key}: missing from your results"))
        _compare(exp[key], act[key], f"{path}, {key}" if path else key)


def _first_value_difference(exp: Any, act: Any, index: tuple) -> tuple | None:
    if isinstance(exp, list):
        if not isinstance(act, list) or len(act) != len(exp):
            return index, _short(exp), _short(act)
        for i, (e, a) in enumerate(zip(exp, act, strict=True)):
            found = _first_value_difference(e, a, (*index, i))
            if found is not None:
                return found
        return None
    return None if _same(exp, act) else (index, exp, act)


def _short(v: Any) -> Any:
    text = repr(v)
    return v if len(text) <= 60 else text[:57] + "..."


def _same(e: Any, a: Any) -> bool:
    """Equal, with a float tolerance; True and 1 are different answers."""
    if isinstance(e, bool) or isinstance(a, bool):
        return type(e) is type(a) and e == a
    if isinstance(e, float) or isinstance(a, float):
        if not (isinstance(a, float) and isinstance(e, float)):
            return False  # 1 and 1.0 come from different dtypes
        if math.isnan(e) and math.isnan(a):
            return True
        return math.isclose(e, a, rel_tol=1e-5, abs_tol=1e-6)
    if isinstance(e, list) and isinstance(a, list):
        return len(e) == len(a) and all(_same(x, y) for x, y in zip(e, a, strict=True))
    return type(e) is type(a) and e == a
