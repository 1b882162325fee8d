"""The model's training-step fact: a loop whose body back-propagates and steps an optimizer runs once per batch
(``Resolver.runs_per_step``), and a parameter such a loop iterates is a loader whose elements are batches."""
from __future__ import annotations

import ast

from npu_lint.context import FileContext
from npu_lint.core import Dispatch, _walk
from npu_lint.rules import Rule
from npu_lint.versions import Target


def _facts(source: str) -> tuple[dict[str, str], dict[int, bool]]:
    """The kind of every name read on a ``probe(...)`` line, and ``runs_per_step`` of every ``for`` loop by line."""
    kinds: dict[str, str] = {}
    loops: dict[int, bool] = {}

    class Spy(Rule):
        code, node_types = "NPU997", (ast.Call, ast.For)

        def check(self, node, ctx):
            if isinstance(node, ast.For):
                loops[node.lineno] = ctx.resolver.runs_per_step(node)
            elif isinstance(node.func, ast.Name) and node.func.id == "probe":
                for argument in node.args:
                    kinds[ast.unparse(argument)] = str(ctx.resolver.kind_of(argument))

    ctx = FileContext(source, Target("2.14.0"))
    _walk(ast.parse(source), ctx, Dispatch([Spy]))
    return kinds, loops


def test_a_parameter_iterated_by_a_training_loop_is_a_loader():
    kinds, loops = _facts(
        "def train_model(self, X, steps):\n"
        "    for step, data in enumerate(X, 0):\n"
        "        probe(X, data)\n"
        "        loss = self.model(data[0])\n        loss.backward()\n        self.optimizer.step()\n")
    assert kinds == {"X": "loader", "data": "batch"}
    assert loops == {2: True}


def test_a_helper_step_counts_and_an_epoch_loop_does_not():
    _, loops = _facts(
        "class T:\n    def _step(self, b):\n        self.model(b).backward()\n        self.opt.step()\n"
        "    def fit(self, data, epochs):\n        for epoch in range(epochs):\n            for b in data:\n"
        "                self._step(b)\n")
    assert loops == {6: False, 7: True}


def test_no_optimizer_step_or_the_projects_own_step_is_no_training_loop():
    kinds, loops = _facts(
        "class Sim:\n    def step(self):\n        pass\n    def run(self, xs):\n        for x in xs:\n"
        "            probe(xs)\n            x.backward()\n            self.step()\n"
        "def grads(xs):\n    for x in xs:\n        x.backward()\n")
    assert kinds == {"xs": "None"}
    assert loops == {5: False, 10: False}


FIT = '''
def fit(model, opt, data, epochs=1):
    for epoch in range(epochs):
        for x in data:
            model(x).sum().backward()
            opt.step()


class Trainer:
    def __init__(self, model, opt):
        self.model, self.opt = model, opt

    def train(self, loader):
        for step, batch in enumerate(loader):
            self.model(batch).mean().backward()
            self.opt.step()

    def evaluate(self, loader):
        return [self.model(b) for b in loader]
'''

MAIN = '''
from torch.utils.data import DataLoader
from pkg.fit import Trainer, fit


def run(model, opt, ds):
    fit(model, opt, DataLoader(ds, batch_size=32))
    loader = DataLoader(ds, batch_size=16)
    trainer = Trainer(model, opt)
    trainer.train(loader)
    trainer.evaluate(DataLoader(ds, batch_size=64))
    fit(model, opt, DataLoader(ds, batch_size=8, drop_last=True))
'''


def test_a_loader_handed_to_another_modules_training_loop_trains(tmp_path) -> None:
    from conftest import package_findings
    found = {(name, line) for name, line, code in package_findings(tmp_path, {"fit": FIT, "main": MAIN})
             if code == "NPU406"}
    assert found == {("main.py", 7), ("main.py", 8)}


def test_a_parameter_wrapped_in_a_local_name_is_still_the_trained_iterable():
    kinds, _ = _facts(
        "from tqdm import tqdm\n"
        "def trainer(model, loss_fn, dataloader, opt, verbose):\n"
        "    probe(dataloader)\n"
        "    dl = tqdm(enumerate(dataloader)) if verbose == 1 else enumerate(dataloader)\n"
        "    for step, (x, y) in dl:\n        loss_fn(model(x), y).backward()\n        opt.step()\n"
        "def other(model, data, opt):\n    probe(data)\n    it = iter(data)\n    it = make(it)\n"
        "    for x in it:\n        model(x).backward()\n        opt.step()\n")
    assert kinds == {"dataloader": "loader", "data": "None"}
