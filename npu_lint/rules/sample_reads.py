"""How the items a loop adds to a list are read from its samples, for NPU409's evidence (sample_items.py): by
position (``targets[i]["boxes"]`` under ``for i in range(len(targets))``), through names the loop body binds to
a sample or a field of one (``ds = batch[i]["data_samples"]``, ``bboxes = inst.bboxes``), cut to a length of the
item's own (``f[:l]`` for ``f, l in zip(feats, lengths)``), joined side by side with other pieces of the same rows
(``torch.cat((idx, labels[:, None], boxes), dim=1)``). Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk

# calls that keep a tensor's rows (``t["boxes"].float().to(dev)``)
_KEEP = frozenset({"float", "long", "int", "to", "view", "reshape", "flatten", "detach", "clone", "cpu", "cuda",
                   "npu", "contiguous", "type", "squeeze", "half", "bool", "type_as", "double"})
_SIDE_BY_SIDE = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "torch.stack"})
_DEPTH = 3


def _stripped(node: ast.AST) -> ast.AST:
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _KEEP:
        node = node.func.value
    return node


def _full_slice(part: ast.AST) -> bool:
    """``:``, ``None``, ``...``: an index that keeps the rows (``labels[:, None]``)."""
    if isinstance(part, ast.Slice):
        return part.lower is None and part.upper is None and part.step is None
    return isinstance(part, ast.Constant) and (part.value is None or part.value is Ellipsis)


def same_rows(node: ast.AST) -> ast.AST:
    """``labels`` for ``labels[:, None]`` / ``x[..., None]`` / ``labels[:, None].float()``: the rows kept."""
    node = _stripped(node)
    while isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple) and node.slice.elts \
            and isinstance(node.slice.elts[0], ast.Slice) and all(_full_slice(p) for p in node.slice.elts):
        node = _stripped(node.value)
    return node


class SampleReads:
    """Mixed into sample_items._Items: ``sources`` (loop target -> sequence), ``indices`` (enumerate index -> the
    names its item binds), ``body`` (the loop that adds the items), ``ctx``."""

    sources: dict[str, ast.AST]
    indices: dict[str, set[str]]
    body: Optional[ast.AST]

    def _counters(self) -> set[str]:
        """The names that count the loops' positions: ``i`` of ``for i in range(...)`` / ``for i, x in
        enumerate(xs)``; each with the names the loop body binds to the item at that position or a field of it
        (``bboxes = gt.bboxes``, ``ds = data_batch[i]["data_samples"]``), added to ``indices`` (memoised)."""
        found = self.__dict__.get("_counter_names")
        if found is not None:
            return found
        for name, iterated in self.sources.items():
            if isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) and iterated.func.id == "range":
                self.indices.setdefault(name, set())
        found = self.__dict__["_counter_names"] = set(self.indices)
        if not isinstance(self.body, ast.For) or not found:
            return found
        assigned = [(child.targets[0].id, child.value) for child in walk(self.body)
                    if isinstance(child, ast.Assign) and len(child.targets) == 1
                    and isinstance(child.targets[0], ast.Name)]
        for index, names in self.indices.items():
            grown = True
            while grown:
                grown = False
                for target, value in assigned:
                    if target not in names and target not in found and self._read_from(value, index, names):
                        names.add(target)
                        grown = True
        return found

    @staticmethod
    def _read_from(value: ast.AST, index: str, names: set[str]) -> bool:
        """``value`` is the item (one of ``names``), the item of a sequence at ``index`` or a field of either."""
        node = _stripped(value)
        while isinstance(node, (ast.Subscript, ast.Attribute)):
            inner = _stripped(node.value)
            if isinstance(node, ast.Subscript) and isinstance(inner, ast.Name) \
                    and isinstance(node.slice, ast.Name) and node.slice.id == index:
                return True
            node = inner
        return isinstance(node, ast.Name) and node.id in names

    def _indexed(self, node: ast.AST) -> Optional[ast.Subscript]:
        """``targets[i]`` in ``targets[i]["boxes"]``, ``i`` a loop counter (``range(len(targets))``, ``range(bs)``,
        an ``enumerate`` index): one item of the sequence ``targets``, read by position instead of iterated."""
        counters = self._counters()
        if not counters:
            return None
        node = _stripped(node)
        while isinstance(node, (ast.Subscript, ast.Attribute)):
            inner = _stripped(node.value)
            if isinstance(node, ast.Subscript) and isinstance(inner, ast.Name) and inner.id not in self.sources:
                index = _stripped(node.slice)
                if isinstance(index, ast.Tuple) and index.elts:   # ``ys_pad[i, :l]``: row i, then cut
                    index = _stripped(index.elts[0])
                return node if isinstance(index, ast.Name) and index.id in counters else None
            node = inner
        return None

    def _aliased(self, root: ast.Name, depth: int = 0) -> Optional[tuple[ast.AST, bool]]:
        """The sequence whose item (or a field of it) the loop body binds ``root`` to, once (``gt = targets[b]``,
        ``ds = data_batch[i]["data_samples"]``, ``inst = sample.gt_instances`` of a loop item ``sample``), and
        whether ``root`` is the item itself; else None."""
        if self.body is None or depth > _DEPTH:
            return None
        values = [child.value for child in walk(self.body) if isinstance(child, ast.Assign)
                  and len(child.targets) == 1 and isinstance(child.targets[0], ast.Name)
                  and child.targets[0].id == root.id]
        if len(values) != 1:
            return None
        value = _stripped(values[0])
        if not isinstance(value, (ast.Subscript, ast.Attribute, ast.Name)):
            return None
        indexed = self._indexed(value)
        if indexed is not None:
            return indexed.value, indexed is value
        inner = value
        while isinstance(inner, (ast.Subscript, ast.Attribute)):
            inner = _stripped(inner.value)
        if not isinstance(inner, ast.Name):
            return None
        if inner.id in self.sources:
            return (self.sources[inner.id], inner is value) if inner.id not in self._counters() else None
        found = self._aliased(inner, depth + 1)
        return (found[0], found[1] and inner is value) if found is not None else None

    def _item_read(self, node: ast.AST) -> bool:
        """``node`` is a loop item or a field of one (``ids``, ``s["ids"]``, ``seqs[i]``), not a counter."""
        node = _stripped(node)
        inner = node
        while isinstance(inner, (ast.Subscript, ast.Attribute)):
            inner = _stripped(inner.value)
        if not isinstance(inner, ast.Name):
            return False
        if inner.id in self.sources:
            return inner.id not in self._counters()
        return self._indexed(node) is not None or self._aliased(inner) is not None

    def _own_length(self, node: ast.AST, item: ast.AST) -> Optional[ast.AST]:
        """The bound of ``node``'s leading slice when it is a length of the item's own: another item of the loop
        (``f[:l]`` for ``f, l in zip(feats, lengths)``) or a sequence read at the loop's counter (``f[:lens[i]]``),
        also through arithmetic (``x[1:n + 1]``); a length only needed when the items' lengths differ."""
        if not isinstance(node, ast.Subscript):
            return None
        counters = self._counters()
        parts = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        while len(parts) > 1 and isinstance(parts[0], ast.Name) and parts[0].id in counters:
            parts = parts[1:]   # ``ys_pad[i, :l]``: the row at the loop's position, cut to its own length
        first = parts[0] if parts else None
        if not isinstance(first, ast.Slice) or first.step is not None:
            return None
        own = {n.id for n in walk(item.value if isinstance(item, ast.Subscript) else item)
               if isinstance(n, ast.Name)}   # the item's own names (not the position it is read at)
        for bound in (first.upper, first.lower):
            for n in walk(bound) if bound is not None else ():
                if isinstance(n, ast.Name) and n.id in self.sources and n.id not in own and n.id not in counters:
                    return bound
                if isinstance(n, ast.Subscript) and isinstance(_stripped(n.slice), ast.Name) \
                        and _stripped(n.slice).id in counters:   # type: ignore[attr-defined]
                    return bound
        return None

    def _side_by_side(self, node: ast.AST) -> list[ast.AST]:
        """The pieces of ``torch.cat((idx, labels[:, None], boxes), dim=1)`` (a dim given, not the first; also
        ``torch.stack(..., dim=-1)``): each has the rows of the result."""
        if not isinstance(node, ast.Call) or not node.args or not isinstance(node.args[0], (ast.Tuple, ast.List)):
            return []
        name = self.ctx.resolver.qualname(node.func)   # type: ignore[attr-defined]
        if name not in _SIDE_BY_SIDE:
            return []
        dim = node.args[1] if len(node.args) > 1 else next(
            (k.value for k in node.keywords if k.arg in ("dim", "axis")), None)
        if dim is None or isinstance(dim, ast.Constant) and dim.value == 0:
            return []
        return [same_rows(e) for e in node.args[0].elts]


def tagged_in_place(items: ast.Name, call: ast.AST, function: Optional[ast.AST]) -> Optional[int]:
    """The line of ``boxes[:, 0] = i`` in ``for i, boxes in enumerate(items)`` before ``call`` in ``function``: each
    item's rows tagged in place with the item's index, only needed when the row counts differ (a YOLO collate
    function); else None."""
    if function is None:
        return None
    for loop in walk(function):
        if not (isinstance(loop, ast.For) and loop.lineno < getattr(call, "lineno", 0)
                and isinstance(loop.iter, ast.Call) and isinstance(loop.iter.func, ast.Name)
                and loop.iter.func.id == "enumerate" and len(loop.iter.args) == 1
                and isinstance(loop.iter.args[0], ast.Name) and loop.iter.args[0].id == items.id
                and isinstance(loop.target, ast.Tuple) and len(loop.target.elts) == 2
                and all(isinstance(e, ast.Name) for e in loop.target.elts)):
            continue
        index, item = loop.target.elts[0].id, loop.target.elts[1].id   # type: ignore[attr-defined]
        for child in walk(loop):
            if isinstance(child, ast.Assign) and isinstance(child.value, ast.Name) and child.value.id == index \
                    and any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == item
                            and isinstance(t.slice, ast.Tuple) and t.slice.elts
                            and _full_slice(t.slice.elts[0]) for t in child.targets):
                return child.lineno
    return None
