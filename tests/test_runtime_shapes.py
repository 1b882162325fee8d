"""``shapes_of`` (the detector's shape reader) on the argument forms its branches separate: sizes, lists of tensors,
rows of numbers, dicts, tensor subclasses, tuple subclasses and the ``MAX_ITEMS`` budget (runtime25 reordered its
tests: exact lists and tuples first)."""
import collections

import pytest

torch = pytest.importorskip("torch")

from npu_lint.runtime.shapes import MAX_ITEMS, shapes_of  # noqa: E402


class Sub(torch.Tensor):
    pass


Pair = collections.namedtuple("Pair", "a b")


def test_shapes_of_forms():
    a, b = torch.zeros(2, 3), torch.zeros(4)
    assert shapes_of([(3, 16, 16), 1.5]) == ()                          # sizes and a number: nothing
    assert shapes_of([[a, b], 1]) == ((2, 3), (4,))                     # a list of tensors
    assert shapes_of([[[1.0, 2.0], [3.0, 4.0]]]) == ()                  # rows of numbers
    assert shapes_of([{"boxes": a, "labels": [b]}]) == ((2, 3), (4,))  # a dict, one level down
    assert shapes_of([a.as_subclass(Sub), "bilinear", None, torch.float32]) == ((2, 3),)
    assert shapes_of([Pair(a, b)]) == ((2, 3), (4,))                    # a tuple subclass (return types)
    assert shapes_of([(a,), [b]]) == ((2, 3), (4,))


def test_shapes_of_budget():
    """Past ``MAX_ITEMS`` elements looked at, later containers are not walked; sizes count against the budget."""
    a = torch.zeros(1)
    assert shapes_of([list(range(MAX_ITEMS)), [a]]) == ()
    assert shapes_of([list(range(MAX_ITEMS - 2)), [a]]) == ((1,),)
    assert shapes_of([[a] * (MAX_ITEMS + 5)]) == ((1,),) * MAX_ITEMS
