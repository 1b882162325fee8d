"""Tensors the code fixes (``Resolver.configured``, ``analysis/configuration.py``): masks, repeats and branch tests
made only of configuration are the same every batch, so NPU401 / NPU402 / NPU414 leave them alone; the same shapes
fed by the data are still reported. Found on botorch (leave-one-out masks of ``torch.eye``), darts (repeat counts
of a list of constants), mmengine (a branch on a tensor of the items' shapes)."""
from __future__ import annotations

import ast
import textwrap

from npu_lint.core import analyse_source
from npu_lint.resolver import Resolver


def _codes(source: str, code: str) -> list[int]:
    return [f.line for f in analyse_source(textwrap.dedent(source), codes=frozenset({code})) if f.code == code]


def test_an_identity_mask_selects_as_many_every_batch():
    source = """\
        import torch
        def negatives(z: torch.Tensor, labels: torch.Tensor):
            sim = z @ z.T
            eye = torch.eye(z.shape[0], dtype=torch.bool, device=z.device)
            a = sim[~eye]
            folds = torch.stack([z[~m] for m in eye])
            b = sim[(labels[:, None] == labels[None]) & ~eye]
            return a, folds, b
        """
    assert _codes(source, "NPU402") == [7]


def test_repeats_of_constants_have_a_fixed_size():
    source = """\
        import torch
        def edges(out, n, device, lengths):
            counts = [1] * n
            counts[0] = 2
            counts = torch.tensor(counts).to(device)
            a = torch.repeat_interleave(out, counts, dim=-1)
            b = torch.repeat_interleave(out, torch.tensor(lengths))
            return a, b
        """
    assert _codes(source, "NPU401") == [7]


def test_a_branch_on_a_tensor_of_shapes_reads_no_data():
    source = """\
        import torch
        import torch.nn.functional as F
        def stack(items, divisor: int = 1):
            sizes = torch.Tensor([t.shape for t in items])
            pads = torch.ceil(torch.max(sizes, dim=0)[0] / divisor) * divisor - sizes
            if pads.sum() == 0:
                return torch.stack(items)
            lens = torch.tensor([len(t) for t in items])
            if (lens.max() - lens).sum() == 0:
                return torch.stack(items)
            return torch.stack([F.pad(t, (0, 1)) for t in items])
        """
    assert _codes(source, "NPU414") == [9]


def test_a_loop_updated_tensor_is_not_configuration():
    """Every binding that may reach the test counts: ``damping = damping * ...`` in the loop is the data's, and
    ``torch.ones(3)`` is a buffer the code may fill, not configuration."""
    source = """\
        import torch
        def walk(steps: torch.Tensor):
            damping = torch.ones(3)
            while torch.sum(damping) > 0:
                damping = damping * (steps.mean() > 0)
            return damping
        """
    assert _codes(source, "NPU413") == [4]


def test_a_helper_called_without_its_optional_mask_selects_nothing():
    source = """\
        import torch
        def pick(x, keep=None):
            if keep is not None:
                x = x[keep]
            return x
        def run(x, m):
            return pick(x), pick(x, m > 0)
        """
    lines = _codes(source, "NPU402")
    # the selection inside the helper; neither call: pick(x) selects nothing, pick(x, m > 0) repeats line 4
    assert lines == [4]


def test_the_model_answers_configured():
    source = "import torch\nmasks = torch.eye(4, dtype=torch.bool)\nm = ~masks\nlens = torch.tensor(lengths)\n"
    tree = ast.parse(source)
    resolver = Resolver()
    resolver.source = source
    resolver.attach(tree)
    inverted = tree.body[2].value
    assert resolver.configured(inverted)
    assert not resolver.configured(tree.body[3].targets[0])


def test_a_list_extended_in_a_loop_holds_the_data():
    """``ids = []`` then ``ids.extend([i] * len(boxes))`` per image: the image index of each box (kornia's mAP)."""
    source = """\
        import torch
        def per_image(boxes_list, boxes: torch.Tensor):
            ids = []
            for i, b in enumerate(boxes_list):
                ids.extend([i] * b.size(0))
            ids_t = torch.tensor(ids, dtype=torch.long)
            return [boxes[ids_t == j] for j in range(len(boxes_list))]
        """
    assert _codes(source, "NPU402") == [7]


def test_what_another_object_method_returns_is_not_configuration():
    """``self.assigner.assign(pred_instances=p)`` (keywords only) is the batch's assignment, not the model's state
    (mmdet's DETR head)."""
    source = """\
        import torch
        class Head(torch.nn.Module):
            def targets(self, preds, gts):
                result = self.assigner.assign(pred_instances=preds, gt_instances=gts)
                return torch.nonzero(result.gt_inds > 0, as_tuple=False).squeeze(-1)
        """
    assert _codes(source, "NPU401") == [5]


def test_a_tensor_a_collective_writes_into_holds_the_ranks_data():
    source = """\
        import torch
        import torch.distributed as dist
        import torch.nn.functional as F
        def pad_right(x: torch.Tensor):
            local = x.size(1)
            n = torch.tensor(local, device=x.device)
            dist.all_reduce(n, op=dist.ReduceOp.MAX)
            longest = n.item()
            return F.pad(x, (0, 0, 0, longest - local))
        def pad_fixed(x: torch.Tensor):
            local = x.size(1)
            n = torch.tensor(local, device=x.device)
            return F.pad(x, (0, 0, 0, n.item() - local))
        """
    # the ranks' longest length read back pads the batch: NPU405 reports it at the maximum read back, the line a
    # fixed length replaces (the maximum across processes is a batch maximum); NPU403 leaves that read to it. ``pad_fixed``'s tensor holds this rank's
    # own size (configuration): silent.
    findings = analyse_source(textwrap.dedent(source), codes=frozenset({"NPU403", "NPU405"}))
    assert [(f.code, f.line) for f in findings] == [("NPU405", 8)]
