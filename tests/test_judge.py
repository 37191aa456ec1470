"""The judge's words: each kind of difference is explained the way the issue promises."""

from autograder.judge import FAIL, NOT_IMPLEMENTED, PASS, judge


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


def raised(kind, message="boom"):
    return {"kind": "raised", "type": kind, "message": message}


def test_equal_observations_pass():
    assert judge({"x.t()": tensor()}, {"x.t()": tensor()}).status == PASS


def test_stride_difference_names_both_sides():
    v = judge({"x.t()": tensor()}, {"x.t()": tensor(stride=[4, 1])})
    assert v.status == FAIL
    assert v.message == "x.t(): stride: torch gives (1, 4), yours gives (4, 1)"


def test_torch_raises_engine_returns():
    v = judge(raised("RuntimeError", "view size is not compatible"), tensor())
    assert v.message == (
        "torch raises RuntimeError here (view size is not compatible), yours returned a tensor"
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
