# -*- coding: utf-8 -*-
"""Odd but valid tokens around calls: semicolons, continuations, comments inside calls, walrus, match, f-strings."""
from __future__ import annotations

import torch; import torch.nn.functional as F
x = torch.ones(3); y = F.relu(x) ; z = torch.cat((x,y))\
    .sum()
total = sum(v.item() for v in (x, y))
print(torch.zeros(2,  # a comment inside the call
                  3))
if (n := x.numel()) > 2:
    w = x.view(n)
label = f"{x.sum()!r:>10} {torch.numel(x)}"
match x.dim():
    case 1:
        q = x.unsqueeze(0)
    case _:
        q = x
lam = lambda a=torch.zeros(1): a.sum()
grid = [[c.mean() for c in row] for row in (x.chunk(3),)]
args = (x,); kwargs = {"dim": 0}
s = torch.stack(*args, **kwargs)
é = torch.ones(1).add(1)
r = x.sum()if x.numel()else x.mean()
