"""The judge's words: each kind of difference is explained the way the issue promises."""

import builtins

from autograder.judge import FAIL, NOT_IMPLEMENTED, PASS, judge
from autograder.observe import raised as observed


def tensor(**fields):
    base = {
        "kind": "tensor",
        "shape": [4, 3],
        "dtype": "int64",
        "stride": [1, 4],
        "storage_offset": 0,
        "is_contiguous": False,
        "values": [[0, 4, 8], [1, 5, 9], [2, 6, 10], [3, 7, 11]],
    }
    return {**base, **fields}


def raised(kind, message="boom", during=""):
    """What a case records when an op raises ``kind`` (a builtin exception's name)."""
    return observed(getattr(builtins, kind)(message), during=during)


def test_equal_observations_pass():
    assert judge({"x.t()": tensor()}, {"x.t()": tensor()}).status == PASS


def test_stride_difference_names_both_sides():
    v = judge({"x.t()": tensor()}, {"x.t()": tensor(stride=[4, 1])})
    assert v.status == FAIL
    assert v.message == "x.t(): stride: torch gives (1, 4), yours gives (4, 1)"


def test_torch_raises_engine_returns():
    v = judge(raised("RuntimeError", "view size is not compatible"), tensor())
    assert v.message == (
        "torch raises RuntimeError here (view size is not compatible); yours did not raise"
    )


def test_a_write_that_should_raise_is_not_said_to_return_anything():
    """``x[5] = 1`` gives named results (x, x.t()) when it wrongly succeeds: never a raw dict."""
    v = judge(
        {"x[5] = 1": raised("IndexError", "index 5 is out of bounds for dimension 0 with size 3")},
        {"x[5] = 1": {"x": tensor(), "x.t()": tensor()}},
    )
    assert v.message.endswith("; yours did not raise")
    assert "{" not in v.message


def test_named_results_against_a_tensor_are_named_in_words():
    v = judge(tensor(), {"x": tensor(), "x.t()": tensor()})
    assert v.message == "torch returns a tensor here, yours returned named results (x, x.t())"


def test_error_messages_must_name_torchs_numbers_in_torchs_order():
    torch_side = raised("IndexError", "index 9 is out of bounds for dimension 1 with size 4")
    reworded = raised("IndexError", "index 9 is too big: dim 1 has 4 elements")
    assert judge(torch_side, reworded).status == PASS  # the wording is not graded
    wrong_dim = raised("IndexError", "index 9 is out of bounds for dimension 0 with size 4")
    v = judge(torch_side, wrong_dim)
    assert v.status == FAIL
    assert v.message.startswith("torch's IndexError names 9, 1, 4 (index 9 is out")
    assert "yours names 9, 0, 4" in v.message
    assert "in order, are compared; its wording is not" in v.message  # says what is compared
    literal = raised("IndexError", "index out of range for a tensor with {ndim} dims")
    assert "yours names no numbers" in judge(torch_side, literal).message
    # The same numbers in another order say something else (issue 26: two versions swapped).
    versions = raised("RuntimeError", "expected version 0 but got version 1")
    swapped = raised("RuntimeError", "expected version 1 but got version 0")
    assert judge(versions, swapped).status == FAIL


def test_op_raised_and_reading_failed_are_told_apart():
    v = judge(tensor(), raised("RuntimeError", "bad view"))
    assert v.message == "torch gives a tensor here; your op raised RuntimeError: bad view"
    v = judge(tensor(), raised("RuntimeError", "bad strides", during="reading"))
    assert v.message == (
        "torch gives a tensor here; your op returned, but reading its result raised "
        "RuntimeError: bad strides"
    )
    v = judge(tensor(), raised("NotImplementedError", "Tensor.is_contiguous (Task 1.3)", "reading"))
    assert v.status == NOT_IMPLEMENTED
    assert v.message == (
        "not implemented yet (needed to read your result): Tensor.is_contiguous (Task 1.3)"
    )


def test_not_implemented_is_its_own_status():
    v = judge(tensor(), raised("NotImplementedError", "Tensor.view (Task 1.4)"))
    assert v.status == NOT_IMPLEMENTED
    assert v.message == "not implemented yet: Tensor.view (Task 1.4)"


def test_error_kind_must_match():
    v = judge(raised("IndexError", "index 3 is out of bounds"), raised("RuntimeError", "nope"))
    assert v.status == FAIL and "torch raises IndexError" in v.message


def test_wrong_return_type():
    v = judge(tensor(), {"kind": "value", "type": "list", "value": [1, 2]})
    assert v.message == "torch returns a tensor here, yours returned list [1, 2]"


def test_first_differing_value_is_located():
    values = [[0, 4, 8], [1, 5, 9], [2, 6, 99], [3, 7, 11]]
    v = judge(tensor(), tensor(values=values))
    assert v.message == "values at index (2, 2): torch gives 10, yours gives 99"


def test_int_and_float_and_bool_are_different_answers():
    assert judge(tensor(values=[1]), tensor(values=[1.0])).status == FAIL
    assert judge(tensor(values=[True]), tensor(values=[1])).status == FAIL
    assert judge(tensor(values=[0.1]), tensor(values=[0.1 + 1e-9])).status == PASS


def test_property_example_is_named():
    exp = [{"example": "arange(6).view(2, 3).t()", "result": tensor()}]
    act = [{"example": "arange(6).view(2, 3).t()", "result": tensor(storage_offset=1)}]
    v = judge(exp, act)
    assert v.message.startswith("example 1 of 1, arange(6).view(2, 3).t(): storage_offset")


def test_a_key_beside_a_tensors_fields_is_compared_too():
    """A case that puts its own key beside a tensor's fields (a storage size, "shares storage
    with") is held to it: the judge once compared only the standard fields and skipped it."""
    torch_side = {"kind": "tensor", "shape": [2], "values": [1, 2], "storage bytes": 8}
    assert judge(torch_side, {**torch_side}).status == PASS
    wrong = judge(torch_side, {**torch_side, "storage bytes": 16})
    assert wrong.status == FAIL and "storage bytes" in wrong.message
    missing = {k: v for k, v in torch_side.items() if k != "storage bytes"}
    assert "missing" in judge(torch_side, missing).message
