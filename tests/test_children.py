"""``nodes.children`` and ``nodes.parents_of`` give exactly what ``ast.iter_child_nodes`` / ``ast.walk`` give."""
import ast
from pathlib import Path

from npu_lint.analysis.nodes import children, parents_of

REPO = Path(__file__).resolve().parent.parent


def _sources():
    yield "x = {**a, 'b': 1}\ndef f(a, *, b=None, c=2):\n    global g\n    return [i for i in a if i] or f'{a!r:>{b}}'\n"
    yield "match p:\n    case Point(x=0, y=_) | [1, *rest] | {'k': v, **kw}:\n        pass\n"
    for path in sorted((REPO / "examples").glob("*.py"))[:5]:
        yield path.read_text(encoding="utf-8")


def test_children_is_iter_child_nodes():
    for source in _sources():
        for node in ast.walk(ast.parse(source)):
            assert children(node) == list(ast.iter_child_nodes(node))


def test_parents_of_is_the_walk_order_map():
    for source in _sources():
        tree = ast.parse(source)
        expected = {}
        for parent in ast.walk(tree):
            for child in ast.iter_child_nodes(parent):
                expected[id(child)] = parent
        assert parents_of(tree) == expected
