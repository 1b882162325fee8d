"""NPU407 at a loop over a project generator of another module that yields batches of a parameter cut in a
parameter's size (the index's ``batches`` fact: ``list(islice(it, bs))`` yielded until empty, or ``items[i:i +
bs]`` over ``range(0, len(items), bs)``): the last batch is shorter; reported where a loop gives one to a model or
makes a tensor of it, not where the batches are only printed."""
from __future__ import annotations

from pathlib import Path

from conftest import package_findings


UTIL = '''from itertools import islice


def get_batches(iterable, batch_size=1000):
    iterable = iter(iterable)
    while True:
        batch = list(islice(iterable, 0, batch_size))
        if batch:
            yield batch
        else:
            break


def windows(items, n):
    for i in range(0, len(items), n):
        yield items[i:i + 4]
'''
TRAIN = '''import numpy as np
import torch

from pkg.util import get_batches, windows


def train(model, data, users, bs):
    for user_batch in get_batches(users, bs):
        x = torch.as_tensor(data[user_batch]).to("npu")
        model(x).sum().backward()


def sample(histories, bs):
    for batch in get_batches(histories, bs):
        ids = np.zeros(len(batch))
        yield torch.LongTensor(ids)


def show(names):
    for group in get_batches(names, 10):
        print(group)


def slide(model, xs, n):
    for w in windows(xs, n):
        model(torch.stack(w))
'''


def test_the_batches_of_another_modules_generator_are_short_at_the_end(tmp_path: Path) -> None:
    found = {(name, line) for name, line, code in package_findings(tmp_path, {"util": UTIL, "train": TRAIN})
             if code == "NPU407"}
    assert found == {("train.py", 8), ("train.py", 14)}
