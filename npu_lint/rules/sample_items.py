"""The evidence NPU409 (dynamic_samples.py) and NPU410 (dynamic_splits.py) ask about the items of a list: why the
items one comprehension or loop builds differ in length, asked of the semantic model where the list is built
(a loader's batch, a parameter annotated as a list of records, the samples a collate function receives, a
per-sample field, a boolean mask or data-dependent operator per item, Python data converted item by item, rows
tagged with their sample's index, row counts the loop records in a list made a tensor of), and whether the number
of items is itself found in the data."""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from npu_lint.analysis.nodes import children as _children   # ``ast.iter_child_nodes``, as a list
from npu_lint.analysis import kinds as K
from npu_lint.analysis.data_shapes import data_shaped, tensor_receiver
from npu_lint.analysis.flows import DATA_SIZE, HOST, RANDOM, ZERO_D
from npu_lint.analysis.size_sinks import shape_sink
from npu_lint.analysis.item_counts import counted_attribute
from npu_lint.analysis.natural_sizes import natural_source
from npu_lint.analysis.nodes import body_of, walk
from npu_lint.context import FileContext
from npu_lint.resolver import BATCH
from npu_lint.rules import FUNCTION_TYPES, short_source
from npu_lint.rules.batch_max_helpers import function_text
from npu_lint.rules.dynamic_wrappers import dynamic_row
from npu_lint.rules.mask_reads import is_bool_index
from npu_lint.rules.collate_samples import collate_attribute, collate_samples, may_collate, unzipped_samples
from npu_lint.rules.sample_counts import recorded_rows, shifted_field
from npu_lint.rules.sample_lengths import enumerated, labelled_sequence
from npu_lint.rules.mapped_items import mapped_items
from npu_lint.rules.sample_reads import SampleReads, same_rows, tagged_in_place
from npu_lint.rules.sample_tags import along_rows, leading_one, tagged_rows

# Fields of a per-sample record (a target dict, an instance record) that hold one row per object or token.
PER_SAMPLE_FIELDS = frozenset({
    "boxes", "bboxes", "gt_boxes", "gt_bboxes", "labels", "gt_labels", "masks", "gt_masks", "keypoints", "polygons",
    "classes", "gt_classes", "instances", "gt_instances", "segments", "cls", "bbox", "input_ids", "tokens",
    "token_ids", "scores", "gt_bboxes_ignore", "ignored_instances", "pos_bboxes", "pos_gt_bboxes", "pos_inds",
    "neg_inds", "pos_gt_labels", "area", "iscrowd", "gt_instance_labels", "pred_instances", "pos_assigned_gt_inds",
    "pos_priors", "neg_priors"})


def per_sample_name(field: Optional[str]) -> bool:
    """A per-sample field, or its 3D detection spelling (session 33, rec33a: ``bboxes_3d``, ``labels_3d``,
    ``scores_3d``, ``gt_labels_3d``: the same rows per object, OpenMMLab's and OpenPCDet's point-cloud records)."""
    if field is None:
        return False
    return field in PER_SAMPLE_FIELDS or field.endswith("_3d") and field[:-3] in PER_SAMPLE_FIELDS


# Annotations of a list of per-sample records: ``List[Dict[str, Tensor]]`` (torchvision's targets) and the
# OpenMMLab aliases of lists of instance records and data samples.
_RECORD_CONTAINERS = frozenset({"List", "list", "Sequence", "Tuple", "tuple", "Iterable"})
_RECORDS = frozenset({"Dict", "dict", "Mapping", "InstanceData", "DetDataSample", "DataSample", "PixelData"})
_RECORD_LISTS = frozenset({"InstanceList", "OptInstanceList", "SampleList", "OptSampleList"})
_CONVERTERS = frozenset({"torch.tensor", "torch.as_tensor", "torch.from_numpy", "torch.LongTensor", "torch.IntTensor",
                         "torch.FloatTensor", "torch.Tensor"})
# converters of Python data: a list of ids per item becomes a tensor as long as the list
_PY_CONVERTERS = frozenset({"torch.tensor", "torch.as_tensor", "torch.LongTensor", "torch.IntTensor"})
_PASS_THROUGH = frozenset({"float", "long", "int", "to", "view", "reshape", "flatten", "detach", "clone", "cpu",
                           "cuda", "npu", "contiguous", "type", "squeeze", "unsqueeze", "half", "bool",
                           "type_as", "new_tensor", "permute", "transpose"})
_DEPTH = 4


def _records_annotation(annotation: Optional[ast.AST]) -> bool:
    """``List[Dict[str, Tensor]]``, ``Optional[list[dict]]``, ``InstanceList``, ``List[InstanceData]``."""
    if annotation is None:
        return False
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except (SyntaxError, ValueError):
            return False
    if isinstance(annotation, (ast.Name, ast.Attribute)):
        name = annotation.id if isinstance(annotation, ast.Name) else annotation.attr
        return name in _RECORD_LISTS
    if isinstance(annotation, ast.Subscript):
        head = annotation.value
        name = head.id if isinstance(head, ast.Name) else head.attr if isinstance(head, ast.Attribute) else ""
        inner = annotation.slice
        if name in ("Optional", "Union"):
            return _records_annotation(inner.elts[0] if isinstance(inner, ast.Tuple) and inner.elts else inner)
        if name in _RECORD_CONTAINERS:
            element = inner.elts[0] if isinstance(inner, ast.Tuple) and inner.elts else inner
            base = element.value if isinstance(element, ast.Subscript) else element
            last = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else ""
            return last in _RECORDS
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return _records_annotation(annotation.left)
    return False


def _strip(node: ast.AST) -> ast.AST:
    """``t["boxes"].float().to(dev)`` -> ``t["boxes"]``: calls that keep an item's length."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _PASS_THROUGH:
        node = node.func.value
    return node


def _root(node: ast.AST) -> Optional[ast.Name]:
    """The name a chain of subscripts, attributes and length-keeping calls starts from."""
    while True:
        node = _strip(node)
        if isinstance(node, (ast.Subscript, ast.Attribute)):
            node = node.value
        else:
            return node if isinstance(node, ast.Name) else None


def _field(node: ast.AST) -> Optional[str]:
    """``boxes`` for ``t["boxes"]``, ``inst.boxes``, ``t["boxes"][keep]`` (a field gathered by an index)."""
    node = _strip(node)
    while isinstance(node, ast.Subscript) and not (isinstance(node.slice, ast.Constant)
                                                   and isinstance(node.slice.value, str)):
        node = _strip(node.value)
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return node.slice.value
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _record_field(node: ast.AST, root: ast.AST) -> Optional[str]:
    """``gt_instances`` for ``d.gt_instances.priors`` / ``s["instances"]["kpts"]``: a field read from a per-sample
    record of instances (OpenMMLab's ``InstanceData``: every field holds one row per instance), not the record itself."""
    node = _strip(node)
    if not isinstance(node, (ast.Attribute, ast.Subscript)):
        return None
    part = _strip(node.value)
    while isinstance(part, (ast.Attribute, ast.Subscript)) and part is not root:
        name = part.attr if isinstance(part, ast.Attribute) else part.slice.value if isinstance(
            part.slice, ast.Constant) and isinstance(part.slice.value, str) else None
        if name in PER_SAMPLE_FIELDS and name.endswith(("instances", "instance_labels")):
            return name
        part = _strip(part.value)
    return None


def _targets(target: ast.AST, iterated: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    """The names a loop target binds, each with the sequence its items come from (through ``zip`` and
    ``enumerate``): ``for i, (t, m) in enumerate(zip(targets, metas))`` gives ``t`` -> ``targets``."""
    while isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) and iterated.args:
        if iterated.func.id == "enumerate" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            target, iterated = target.elts[1], iterated.args[0]
        elif iterated.func.id == "zip" and isinstance(target, ast.Tuple) and len(target.elts) == len(iterated.args):
            for element, source in zip(target.elts, iterated.args):
                yield from _targets(element, source)
            return
        elif iterated.func.id in ("list", "tuple", "reversed", "sorted", "iter"):
            iterated = iterated.args[0]
        else:
            break
    if isinstance(target, ast.Name):
        yield target.id, iterated
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:    # ``for image, target in batch``: items of one sample
            yield from _targets(element, iterated)


# Loop counts known only from the data: the count of a data-dependent result, a value read back from a tensor.
_COUNT_FLOWS = (DATA_SIZE, HOST, ZERO_D)
# Sizes found per item: read back from a tensor, or drawn at random, in the loop that builds the list.
_ITEM_SIZES = (HOST, ZERO_D, RANDOM)


def _whole(part: ast.AST) -> bool:
    """``:`` or ``...``: an axis taken whole."""
    if isinstance(part, ast.Constant):
        return part.value is Ellipsis
    return isinstance(part, ast.Slice) and part.lower is None and part.upper is None and part.step is None


def _length_of(node: ast.AST, name: str) -> bool:
    """``name.shape[0]``, ``name.size(0)``, ``len(name)``, ``name.numel()``: the length of ``name`` read."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape" \
            and isinstance(node.value.value, ast.Name) and node.value.value.id == name \
            and isinstance(node.slice, ast.Constant) and node.slice.value == 0:
        return True
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Name) and func.id == "len":
        return len(node.args) == 1 and isinstance(node.args[0], ast.Name) and node.args[0].id == name
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == name:
        return func.attr == "numel" and not node.args or func.attr == "size" and len(node.args) == 1 \
            and isinstance(node.args[0], ast.Constant) and node.args[0].value == 0
    return False


class _Items(SampleReads):
    """Why the items of one comprehension or loop differ in length, asked of the model where the list is built."""

    def __init__(self, ctx: FileContext, loops: list[tuple[ast.AST, ast.AST]], body: Optional[ast.AST],
                 rows: bool = False, counting: Optional[list[tuple[ast.AST, ast.AST]]] = None) -> None:
        self.ctx = ctx
        self.sources: dict[str, ast.AST] = {}
        # the loops that add items to one list (not those around the statement that makes the list anew: a list
        # made per outer step holds one item per step of the inner loops only)
        self.counting: dict[str, ast.AST] = self.sources if counting is None else dict(
            pair for target, iterated in counting for pair in _targets(target, iterated))
        self.indices: dict[str, set[str]] = {}   # ``for i, t in enumerate(ts)``: i -> {"t"}
        for target, iterated in loops:
            self.sources.update(_targets(target, iterated))
            counted = enumerated(target, iterated)
            if counted is not None:
                self.indices[counted[0]] = counted[1]
        self.body = body
        self.rows = rows    # the items are joined along their first dimension (the evidence below needs it)

    def _gathered(self, element: ast.AST) -> Optional[str]:
        """``feats[cluster]`` (``feats[cluster, :]``) for each ``cluster`` of a sequence (not a counter) whose length
        the loop reads (``cluster.shape[0]``, ``len(cluster)``, ``cluster.size(0)``, ``cluster.numel()``): rows
        gathered by index sets of their own lengths (clusters, segments, groups)."""
        if not isinstance(self.body, ast.For) or not isinstance(element, ast.Subscript):
            return None
        parts = element.slice.elts if isinstance(element.slice, ast.Tuple) else [element.slice]
        index = _strip(parts[0])
        if not isinstance(index, ast.Name) or index.id not in self.sources or index.id in self._counters() \
                or index.id in self.indices or not all(_whole(p) for p in parts[1:]):
            return None
        root = _root(element)
        if root is None or isinstance(root, ast.Name) and root.id in self.sources:
            return None
        if not any(_length_of(node, index.id) for node in walk(self.body)):
            return None
        return f"each item gathered by an index set of its own length ({index.id}, its length read in the loop)"

    def per_sample(self, sequence: ast.AST, depth: int = 0) -> Optional[str]:
        """Why ``sequence`` holds one item per sample: a loader's batch, a parameter annotated as a list of
        records, the samples a collate function receives (or one field of each, ``zip(*samples)``), or a list
        comprehension over such a sequence."""
        if self.ctx.resolver.kind_of(sequence) == BATCH:
            return "a batch from the loader"
        if isinstance(sequence, ast.Name):
            binding = self.ctx.resolver.binding(sequence)
            if binding is None:
                return None
            collated = self.collated(sequence)
            if collated:
                return collated
            if binding.tag == "param" and binding.node is not None and _records_annotation(binding.node.annotation):
                return f"{sequence.id}: {ast.unparse(binding.node.annotation)}"
            if binding.tag == "value" and not binding.path and isinstance(binding.value, ast.ListComp) and depth < 2:
                inner = binding.value.generators[0]
                items = _Items(self.ctx, [(inner.target, inner.iter)], None, self.rows)
                if items.varies(binding.value.elt, depth + 1):
                    return f"{sequence.id} = {short_source(binding.value, 30)}"
        return None

    def collated(self, sequence: ast.AST, any_dim: bool = False) -> Optional[str]:
        """Why ``sequence`` holds the samples a collate function joins along their first dimension (along any with
        ``any_dim``), or one field of each (``images, targets = zip(*samples)``)."""
        if not (self.rows or any_dim) or not may_collate(self.ctx):
            return None
        if isinstance(sequence, ast.Attribute):     # ``self.graphs`` in a dataclass's ``__post_init__``
            return collate_attribute(sequence, self.ctx)
        if not isinstance(sequence, ast.Name):
            return None
        binding = self.ctx.resolver.binding(sequence)
        return collate_samples(binding, self.ctx) or unzipped_samples(binding, self.ctx) if binding else None

    def varies(self, element: ast.AST, depth: int = 0) -> Optional[str]:
        """Why ``element`` (an item built in the loop) has a length of its own: the evidence, or None."""
        if depth > _DEPTH:
            return None
        if self.rows and leading_one(element):
            return None     # ``x[None]``, ``x.unsqueeze(0)``: one row per item
        if self.rows and depth == 0 and (self.indices or self._counters()):
            index = tagged_rows(element, self.indices, self._assigned_in_body, self.ctx)
            if index is not None:
                return "each item's rows labelled with the index of its sample"
        stripped = same_rows(element) if self.rows else _strip(element)
        read = stripped.func if isinstance(stripped, ast.Call) else stripped
        if isinstance(read, ast.Attribute) and isinstance(read.value, ast.Name) and read.value.id in self.sources:
            stripped = counted_field(stripped, self.ctx) or stripped   # ``frame.get_ids()`` of ``self.instances``
        if isinstance(stripped, ast.IfExp):     # ``t[i] if len(i) else t.new_zeros(0, 4)``
            found = self.varies(stripped.body, depth + 1) or self.varies(stripped.orelse, depth + 1)
            if not found and self.rows and empty_rows(stripped.body) != empty_rows(stripped.orelse):
                return "an empty item of 0 rows beside items with rows"
            return found
        if not self.rows and depth == 0 and isinstance(stripped, ast.BinOp) and isinstance(self.body, ast.For):
            field = shifted_field(stripped, self.body)    # ``g.edge_index + offset`` with ``offset += g.num_nodes``
            root = _root(field) if field is not None else None
            source = self.sources.get(root.id) if root is not None and field is not root else None
            collated = self.collated(source, any_dim=True) if source is not None else None
            if collated:
                return f"each item's indices shifted by the sizes of the samples before it, a field of {collated}"
        counted = _repeat_count(stripped) if self.rows else None
        if counted is not None:     # ``[i] * len(mg.V)``: one tag per row of a per-sample item (session 32, rec32b)
            found = self.varies(counted, depth + 1)
            return f"one tag per row of each item ({found})" if found else None
        if self.rows and isinstance(stripped, ast.BinOp):   # ``d["idx_j"] + offset``: as many rows as the item
            return self.varies(stripped.left, depth + 1)
        root: Optional[ast.AST] = _root(stripped)
        source = self.sources.get(root.id) if root is not None else None   # type: ignore[union-attr]
        if source is None and root is not None:
            indexed = self._indexed(stripped)   # ``targets[i]["boxes"]`` under ``for i in range(len(targets))``
            if indexed is not None:
                root, source = indexed, indexed.value
            elif isinstance(root, ast.Name):   # ``ds.gt_instances.masks`` after ``ds = data_batch[i]["samples"]``
                aliased = self._aliased(root)
                if aliased is not None and (aliased[1] or stripped is not root):
                    source = aliased[0]   # a name for a field of the item counts through its own fields only
        if source is not None:
            field = _field(stripped)
            if per_sample_name(field) and stripped is not root:
                return f"per-sample field {field!r}"
            record = _record_field(stripped, root)
            if record is not None:   # ``d.gt_instance_labels.keypoint_weights``: any field of an instance record
                return f"a field of the per-sample record {record!r}"
            cut = self._own_length(stripped, root) if self.rows else None
            if cut is not None:   # ``f[:l] for f, l in zip(feats, lengths)``: each item cut to a length of its own
                return f"each item cut to its own length ({short_source(cut, 30)})"
            collated = self.collated(source) if stripped is not root else None
            if collated:    # ``d[key]`` of each sample a collate function joins: any field, its rows
                return f"a field of {collated}"
            index = _strip(stripped.slice) if isinstance(stripped, ast.Subscript) else None   # ``t[j.to(t.device)]``
            if isinstance(index, ast.Name) and index.id in self.sources and self.sources[index.id] is not source \
                    and index.id not in self._counters():   # ``inputs[i]`` by position is the item itself
                return f"each item gathered by its own indices from {short_source(self.sources[index.id])}"
            # A field that holds one row per object says so (PER_SAMPLE_FIELDS); any other field of a record
            # (``sample.gt_label``: one class label per image) is not evidence of a length of its own.
            why = self.per_sample(source, depth) if stripped is root else None
            if why:
                return f"items of {why}"
        gathered = self._gathered(stripped) if self.rows and depth == 0 else None
        if gathered is not None:   # ``feats[cluster]`` for each ``cluster`` whose length the loop reads
            return gathered
        if self.rows:   # ``torch.cat((idx, labels[:, None], boxes), dim=1)``: the rows of each piece
            for piece in self._side_by_side(stripped):
                found = self.varies(piece, depth + 1)
                if found:
                    return found
        if isinstance(stripped, ast.Subscript) and isinstance(stripped.ctx, ast.Load):
            indices = stripped.slice.elts if isinstance(stripped.slice, ast.Tuple) else [stripped.slice]
            if any(not isinstance(i, (ast.Slice, ast.Constant)) and is_bool_index(i, self.ctx) for i in indices):
                return "a boolean mask applied to each item"
            picked = next((i for i in indices if _per_sample_field(i)), None)
            if picked is not None:   # ``kpts[sampling_result.pos_assigned_gt_inds]``: one row per positive
                return f"each item gathered by the per-sample indices {_field(picked)!r}"
            if any(self._data_dependent(i) or isinstance(i, ast.Name) and i.id not in self.sources
                   and any(self._data_dependent(v) for v in self._assigned_in_body(i.id)) for i in indices):
                return "a data-dependent index per item"   # ``keep = nms(b, s, t)``; ``b[keep]``
        if isinstance(stripped, ast.Call):
            if self._data_dependent(stripped):
                return "a data-dependent operator per item"
            name = self.ctx.resolver.qualname(stripped.func)
            if name in _CONVERTERS and stripped.args and isinstance(stripped.args[0], ast.Call):
                names = {n.id for n in walk(stripped.args[0]) if isinstance(n, ast.Name)}
                if names & set(self.sources):     # ``torch.tensor(tok.encode(s))``, ``torch.tensor(range(n))``
                    return "a sequence computed and converted item by item"
            if name in _PY_CONVERTERS and stripped.args and self.rows and self._item_read(stripped.args[0]) \
                    and _field(stripped.args[0]) in PER_SAMPLE_FIELDS:
                return "a per-sample field converted item by item"   # ``torch.tensor(s["input_ids"])``
            if name in _CONVERTERS and stripped.args and isinstance(stripped.args[0], (ast.ListComp, ast.GeneratorExp)):
                names = {n.id for g in stripped.args[0].generators for n in walk(g.iter) if isinstance(n, ast.Name)}
                if names & set(self.sources):     # ``torch.IntTensor([vocab[c] for c in t])``: one per character
                    return "a sequence computed and converted item by item"
        if self.rows and depth == 0 and isinstance(self.body, ast.For):
            recorded = recorded_rows(stripped, self.body, self.ctx)   # ``offset.append(count)``, made a tensor
            if recorded:
                return recorded
        made = stripped
        if isinstance(made, ast.Attribute) and made.attr in ("indices", "values") \
                or isinstance(made, ast.Subscript) and isinstance(made.slice, ast.Constant):
            made = made.value   # ``s.topk(n).indices``, ``x.sort()[1]``: a result of the call
        if self.body is not None and (self.rows or depth == 0) and isinstance(made, (ast.Call, ast.BinOp)):
            # ``torch.randint(0, h, (int(length.sum()),))`` made per item; joined along another dim, any shape the
            # item's calls take from such a value (``torch.arange(n).view(1, n).repeat(k, 1) + 1``): a cat of
            # items whose other dims differed would fail, so the joined one differs
            calls = [made] if self.rows else [n for n in walk(made) if isinstance(n, ast.Call)][:8]
            for call in calls:
                origin = self._sized_in_loop(call) if isinstance(call, ast.Call) else None
                if origin is not None:
                    return f"each item sized by {short_source(origin, 30)} (line {origin.lineno}), a value found per item"
        if (isinstance(stripped, ast.Name) and stripped.id not in self.sources or isinstance(stripped, ast.Call)) \
                and self.body is not None and self._shaped_in_loop(stripped):
            return "a data-dependent operator per item"   # ``e, s = valid.nonzero(as_tuple=True)`` in the loop
        if depth == 0:
            natural = natural_source(self.ctx.resolver, element, self.ctx.resolver.current)
            if natural is not None:   # ``torchaudio.load(p)[0]``: a whole recording, as long as the file
                return f"each item the input's own size ({short_source(natural[0], 30)}, line {natural[0].lineno})"
        if isinstance(stripped, ast.Name) and self.body is not None and stripped.id not in self.sources:
            assigned = self._assigned_in_body(stripped.id)
            empties = [v for v in assigned if empty_rows(v)]
            if self.rows and empties and len(empties) < len(assigned):    # one arm: ``x.new_zeros((0, 4))``
                return f"an empty item of 0 rows (line {empties[0].lineno}) beside items with rows"
            for value in assigned:
                why = self.varies(value, depth + 1)
                if why:
                    return why
        return None

    def counted_by(self, element: Optional[ast.AST] = None) -> Optional[ast.AST]:
        """The data-dependent sequence a loop of the list walks (``for c in labels.unique()``, ``torch.nonzero(m)``,
        ``labels.unique().tolist()``): one item per value found in the data, so the number of items varies.
        ``element``: the item added (a comprehension's element), for the chunk walk below."""
        for source in self._counting_sources():
            while isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) and not source.args \
                    and source.func.attr in ("tolist", "cpu", "numpy", "long", "int"):
                source = source.func.value
            if not isinstance(source, ast.Call):
                continue
            name = self.ctx.resolver.qualname(source.func)
            if name is None and isinstance(source.func, ast.Attribute):
                name = "torch.Tensor." + source.func.attr   # ``labels.unique()``: the count varies on any receiver
            row = dynamic_row(name) if name else None
            if row is not None and (row["condition"] == "always" or (
                    row["condition"] == "tensor_receiver" and isinstance(source.func, ast.Attribute)
                    and tensor_receiver(self.ctx.resolver, source.func.value, self.ctx.resolver.current)) or (
                    row["condition"] == "one_argument" and len(source.args) == 1 and not source.keywords)):
                return source
        return self._counted_by_model(element)

    def _counted_by_model(self, element: Optional[ast.AST] = None) -> Optional[ast.AST]:
        """The model's answer when no data-dependent op is spelled in the loop header: the loop walks the rows of
        such a result through names and the file's helpers (``for box in dets`` of ``dets = boxes[keep]``), or
        ``range(n)`` of a count known only from the data (``range(len(y))`` of ``y, ey, x, ex = pad(boxes[pick])``:
        one crop per detection; ``range(int(mask.sum()))``)."""
        resolver = self.ctx.resolver
        scope = resolver.current
        for source in self._counting_sources():
            if isinstance(source, ast.Call) and isinstance(source.func, ast.Name) and source.func.id == "range" \
                    and resolver.binding(source.func, scope) is None:
                if self._chunk_walk(source, element):
                    continue
                for bound in source.args[:2]:
                    flow = resolver.flow_of(bound, _COUNT_FLOWS, scope)
                    if flow is not None:
                        return flow[1]
                continue
            op = data_shaped(resolver, source, scope)
            if op is not None and resolver.kind_of_at(source, scope) != K.LIST:
                return op
        return None

    def _chunk_walk(self, source: ast.Call, element: Optional[ast.AST]) -> bool:
        """Session 27: ``range(0, n, CHUNK)`` whose counter starts a cut of the item (``x[s:s + CHUNK]`` in the
        element or the loop's body): fixed-size pieces of one tensor, processed and joined back; the join is as long
        as ``n``, the tensor's own length (reported where that length varies), however many pieces it takes."""
        if len(source.args) != 3 or source.keywords:
            return False
        targets = {name for name, iterated in self.counting.items() if iterated is source}
        if not targets:
            return False
        places = [p for p in (element, self.body) if p is not None]
        return any(isinstance(n, ast.Slice) and isinstance(n.lower, ast.Name) and n.lower.id in targets
                   for place in places for n in walk(place))

    def _counting_sources(self) -> list[ast.AST]:
        """The sequences the list's loops walk, and for a name bound once to an unfiltered comprehension (``per_class
        = [torch.nonzero(t == c) for c in ids]`` then ``for rows in per_class``) the sequence that comprehension walks:
        as many items (session 26, dataops26)."""
        found = []
        resolver = self.ctx.resolver
        for source in self.counting.values():
            found.append(source)
            if not isinstance(source, ast.Name) or resolver.scopes is None or resolver.current is None:
                continue
            bindings = resolver.scopes.lookup_reaching(source.id, resolver.current, (source.lineno, source.col_offset))
            value = bindings[0].value if len(bindings) == 1 and not bindings[0].path else None
            if isinstance(value, (ast.ListComp, ast.GeneratorExp)) and len(value.generators) == 1 \
                    and not value.generators[0].ifs:
                found.append(value.generators[0].iter)
        return found

    def _data_dependent(self, node: ast.AST) -> bool:
        node = _strip(node)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Call):
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            inner = node.value
            tupled = any(k.arg == "as_tuple" for k in inner.keywords) or self.ctx.resolver.qualname(inner.func) \
                == "torch.where"
            if isinstance(parts[0], ast.Slice) or tupled and isinstance(parts[0], ast.Constant):
                node = inner   # ``torch.where(s > t)[0]``, ``m.nonzero()[:, 0]``: the indices the op found
        if not isinstance(node, ast.Call):
            return False
        name = self.ctx.resolver.qualname(node.func)
        if name is None and isinstance(node.func, ast.Attribute):
            name = "torch.Tensor." + node.func.attr
        row = dynamic_row(name) if name else None
        return row is not None and row["condition"] in ("always", "one_argument") and \
            (row["condition"] != "one_argument" or (len(node.args) == 1 and not node.keywords))

    def _shaped_in_loop(self, name: ast.AST) -> bool:
        """The model's answer: ``name`` is the result of a data-dependent op (or keeps its first axis: an element
        of ``x.nonzero(as_tuple=True)``, ``torch.full_like`` of one) computed inside the loop that builds the list,
        a new length per item."""
        resolver = self.ctx.resolver
        scope = resolver.current
        if scope is None or self.body is None:
            return False
        op = data_shaped(resolver, name, scope)
        start, end = self.body.lineno, getattr(self.body, "end_lineno", None) or self.body.lineno
        return op is not None and start <= getattr(op, "lineno", 0) <= end

    def _sized_in_loop(self, call: ast.Call) -> Optional[ast.AST]:
        """The model's answer: ``call`` makes a tensor (a factory, a shape method) whose size carries a value read
        back from a tensor or drawn at random inside the loop that builds the list: a new size per item. A batch
        maximum is no such value (every item padded to it has the same length)."""
        resolver = self.ctx.resolver
        scope = resolver.current
        if scope is None or self.body is None:
            return None
        sink = shape_sink(call, resolver, scope, False)
        if sink is None:
            return None
        start, end = self.body.lineno, getattr(self.body, "end_lineno", None) or self.body.lineno
        for arg in sink[0]:
            for flavour, origin in resolver.flows(arg, scope):
                if flavour in _ITEM_SIZES and start <= getattr(origin, "lineno", 0) <= end:
                    return origin
        return None

    def _assigned_in_body(self, name: str) -> list[ast.AST]:
        """The values assigned to ``name`` inside the loop body (``dets = boxes[keep]``)."""
        return [child.value for child in (walk(self.body) if self.body is not None else ())
                if isinstance(child, ast.Assign) and len(child.targets) == 1 and isinstance(child.targets[0], ast.Name)
                and child.targets[0].id == name]


_EMPTY_MAKERS = frozenset({"zeros", "empty", "ones", "full", "new_zeros", "new_empty", "new_ones", "new_full"})


def _repeat_count(node: ast.AST) -> Optional[ast.AST]:
    """``[i] * len(x)``, ``[tag] * x.shape[0]``, ``x.size(0) * [i]``: a one-item list repeated once per row of
    ``x`` (the value whose rows it counts), else None."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)):
        return None
    for listed, count in ((node.left, node.right), (node.right, node.left)):
        if not (isinstance(listed, (ast.List, ast.Tuple)) and len(listed.elts) == 1):
            continue
        if isinstance(count, ast.Call) and isinstance(count.func, ast.Name) and count.func.id == "len" \
                and len(count.args) == 1:
            return count.args[0]
        if isinstance(count, ast.Subscript) and isinstance(count.value, ast.Attribute) \
                and count.value.attr == "shape" and isinstance(count.slice, ast.Constant) and count.slice.value == 0:
            return count.value.value
        if isinstance(count, ast.Call) and isinstance(count.func, ast.Attribute) and count.func.attr == "size" \
                and len(count.args) == 1 and isinstance(count.args[0], ast.Constant) and count.args[0].value == 0:
            return count.func.value
    return None


def empty_rows(node: ast.AST) -> bool:
    """``x.new_zeros((0, 4))``, ``torch.zeros(0, n)``, ``torch.empty((0, 5), device=d)`` (through ``.bool()``,
    ``.to(dev)``): a tensor of no rows, the placeholder of a sample without objects."""
    node = _strip(node)
    if not isinstance(node, ast.Call) or not node.args:
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if name not in _EMPTY_MAKERS:
        return False
    size = node.args[0]
    if isinstance(size, (ast.Tuple, ast.List)):
        if len(size.elts) < 2:
            return False    # ``zeros((0,))``: an empty vector, not rows of a table
        size = size.elts[0]
    elif len(node.args) < 2 or name in ("full", "new_full"):
        return False
    return isinstance(size, ast.Constant) and type(size.value) is int and size.value == 0


def counted_field(node: ast.AST, ctx: FileContext) -> Optional[ast.Attribute]:
    """``frame.instances`` for ``frame.num_detected`` / ``frame.get_track_ids()`` when every method of that name in
    the project (or, without an index, in the file) counts the items of ``self.instances`` (the model's
    :func:`npu_lint.analysis.item_counts.counted_attribute`): the item field whose length the read is."""
    call = isinstance(node, ast.Call) and not node.args and not node.keywords
    attribute = node.func if call else node
    if not isinstance(attribute, ast.Attribute) or not isinstance(attribute.value, ast.Name):
        return None
    if ctx.project is not None:
        found = ctx.project.counted_items(attribute.attr)
    else:
        local = ctx.scratch.get("counted_items")
        if local is None:
            local = ctx.scratch["counted_items"] = _file_counts(ctx)
        found = local.get(attribute.attr, "")
    if not found:
        return None
    return ast.copy_location(ast.Attribute(value=attribute.value, attr=found, ctx=ast.Load()), node)


def _file_counts(ctx: FileContext) -> dict[str, str]:
    found: dict[str, str] = {}
    scopes = ctx.resolver.scopes
    for scope in (scopes.by_node.values() if scopes is not None else ()):
        node = scope.node
        if scope.kind == "function" and scope.parent is not None and scope.parent.kind == "class" \
                and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            owner = (ctx.resolver.class_value(scope.parent.node) or (K.OBJECT,))[0]
            counts = counted_attribute(node) if owner == K.OBJECT else ""   # a plain class: a record of the data
            found[node.name] = counts if found.get(node.name, counts) == counts else ""
    return found


def _built_list(name: ast.Name, ctx: FileContext, rows: bool = False) -> Iterator[tuple[ast.AST, "_Items"]]:
    """For a list bound in this function: each item added to it with the loops around the addition, or the
    comprehension it was bound to."""
    binding = ctx.resolver.binding(name)
    if binding is None or binding.tag != "value":
        return
    value = binding.value
    if binding.path:    # ``xs, edges = [], []``: the element the name is bound to
        if len(binding.path) != 1 or not isinstance(value, (ast.Tuple, ast.List)) \
                or binding.path[0] >= len(value.elts) or any(isinstance(e, ast.Starred) for e in value.elts):
            return
        value = value.elts[binding.path[0]]
    if isinstance(value, (ast.ListComp, ast.GeneratorExp)):
        yield value.elt, _Items(ctx, [(g.target, g.iter) for g in value.generators], None, rows)
        return
    if not (isinstance(value, (ast.List, ast.Tuple)) and not value.elts) \
            or not isinstance(binding.scope.node, FUNCTION_TYPES):   # ``xs = []``, ``xs = ()`` then ``xs += (x,)``
        return
    made = binding.pos[0] if binding.pos else None   # the line the list is made on
    for element, loops in _additions(binding.scope.node, ctx).get(name.id, ()):
        counting = [(loop.target, loop.iter) for loop in loops
                    if made is None or not loop.lineno <= made <= (loop.end_lineno or loop.lineno)]
        yield element, _Items(ctx, [(loop.target, loop.iter) for loop in loops], loops[-1], rows, counting)


def _additions(function: ast.AST, ctx: FileContext) -> dict[str, list[tuple[ast.AST, list[ast.For]]]]:
    """Per list name of a function: the items ``name.append(x)`` / ``name += [x]`` (``+= (x,)``) add inside loops, with the
    loops around each (one walk per function)."""
    index = ctx.scratch.setdefault("list_additions", {})
    found = index.get(id(function))
    if found is None:
        found = index[id(function)] = {}
        if ".append(" in function_text(function, ctx) or "+=" in function_text(function, ctx):
            for node, loops in _with_loops(function):
                if not loops:
                    continue
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append" \
                        and isinstance(node.func.value, ast.Name) and len(node.args) == 1:
                    found.setdefault(node.func.value.id, []).append((node.args[0], loops))
                elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) \
                        and isinstance(node.value, (ast.List, ast.Tuple)):
                    found.setdefault(node.target.id, []).extend((e, loops) for e in node.value.elts)
    return found


def _with_loops(function: ast.AST) -> Iterator[tuple[ast.AST, list[ast.For]]]:
    """Every node of a function's body with the ``for`` loops around it, outermost first (nested functions
    and classes left out)."""
    stack: list[tuple[ast.AST, list[ast.For]]] = [(child, []) for child in reversed(body_of(function))]
    while stack:
        node, loops = stack.pop()
        yield node, loops
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        inner = loops + [node] if isinstance(node, ast.For) else loops
        for child in reversed(list(_children(node))):
            stack.append((child, inner if isinstance(node, ast.For) and child not in (node.target, node.iter)
                          else loops))


def _built_items_vary(items: ast.Name, ctx: FileContext, rows: bool) -> Optional[str]:
    """Why an item added to the list ``items`` has a length of its own (the first evidence), memoised per binding
    of the list: every join of one list asks the same (150 joins of a list of 150 appends asked 22,500 times)."""
    binding = ctx.resolver.binding(items)
    memo = ctx.scratch.setdefault("built_items_vary", {})
    key = (binding, rows) if binding is not None else None
    if key is not None and key in memo:
        return memo[key]
    found = next((why for element, context in _built_list(items, ctx, rows) if (why := context.varies(element))), None)
    if key is not None:
        memo[key] = found
    return found


def per_sample_items(items: ast.AST, call: ast.Call, ctx: FileContext) -> Optional[str]:
    """Why the list ``items`` holds per-sample items of different lengths (the evidence), else None."""
    rows = along_rows(call, ctx)
    if isinstance(items, (ast.ListComp, ast.GeneratorExp)):
        found = _Items(ctx, [(g.target, g.iter) for g in items.generators], None, rows).varies(items.elt)
        return found or labelled_sequence(items, call, ctx)
    if isinstance(items, ast.Name):
        collated = _Items(ctx, [], None, rows).collated(items)
        if collated:    # ``torch.cat(samples)``, ``torch.cat(targets)`` of ``zip(*samples)``
            return collated
        found = _built_items_vary(items, ctx, rows)
        if found:
            return found
        if rows:
            tagged = tagged_in_place(items, call, ctx.enclosing(call, FUNCTION_TYPES))
            if tagged is not None:   # ``for i, boxes in enumerate(targets): boxes[:, 0] = i``
                return f"each item's rows tagged in place with its index (line {tagged})"
            # ``cls_targets`` of ``(masks, cls_targets, ...) = multi_apply(self._get_targets_single, ...)``
            return mapped_items(items, ctx, empty_rows, _per_sample_field)
    return None


def _per_sample_field(node: ast.AST) -> bool:
    """``sampling_result.pos_gt_bboxes``, ``t["boxes"]``: a per-sample field read from a record."""
    node = _strip(node)
    return isinstance(node, (ast.Attribute, ast.Subscript)) and per_sample_name(_field(node))


def per_value_items(items: ast.AST, ctx: FileContext) -> Optional[ast.AST]:
    """The data-dependent sequence (``labels.unique()``) whose values the list ``items`` holds one item for."""
    if isinstance(items, (ast.ListComp, ast.GeneratorExp)):
        return _Items(ctx, [(g.target, g.iter) for g in items.generators], None).counted_by(items.elt)
    if isinstance(items, ast.Name):
        for element, context in _built_list(items, ctx):
            found = context.counted_by(element)
            if found is not None:
                return found
    return None


# Session 26 (dataops26): NPU409's examples of the count walked through a comprehension, beside its code.
COUNTED_FIRE = (
    "import torch\ndef loss(s, t):\n    ids = torch.unique(t)\n"
    "    per_class = [torch.nonzero(t == c).flatten() for c in ids]\n    out = []\n"
    "    for rows in per_class:\n        out.append(torch.logsumexp(s[rows], 0))\n    return torch.stack(out)\n",
)
COUNTED_SILENT = (   # a comprehension over a range of a setting: a fixed count
    "import torch\ndef fixed(x, n):\n    parts = [x[i] for i in range(n)]\n    out = []\n"
    "    for p in parts:\n        out.append(p.sum())\n    return torch.stack(out)\n",
)

# Session 27 (precision27, ``_Items._chunk_walk``): fixed-size pieces of one tensor (``range(0, m, CHUNK)`` with
# ``x[s:s + CHUNK]``) joined back have the tensor's own length (rf-detr's chunked mask IoU and mask upsampling); one
# item per row of a data-dependent selection, also over a stepped range, still fires.
CHUNKED_SILENT = (
    "import torch\nimport torch.nn.functional as F\ndef _areas(gt, size, CH=64):\n    m = gt.shape[0]\n"
    "    parts = [F.interpolate(gt[s:s + CH], size=size).sum((1, 2)) for s in range(0, m, CH)]\n"
    "    return torch.cat(parts, dim=0)\ndef per_class(masks, labels, c, size):\n"
    "    return _areas(masks[labels == c], size)\n",
    "import torch\ndef _inter(pred, gt, CH=64):\n    m = gt.shape[0]\n    blocks = []\n    for g in range(0, m, CH):\n"
    "        chunk = gt[g:g + CH]\n        blocks.append(torch.mm(pred, chunk.flatten(1).t()))\n"
    "    return torch.cat(blocks, dim=1)\ndef per_class(pred, masks, labels, c):\n"
    "    return _inter(pred, masks[labels == c])\n",
)
CHUNKED_FIRE = (
    "import torch\ndef _strided(x, gt):\n    m = gt.shape[0]\n"
    "    return torch.cat([x * gt[s].sum() for s in range(0, m, 2)])\ndef per_class(x, masks, labels, c):\n"
    "    return _strided(x, masks[labels == c])\n",
)
