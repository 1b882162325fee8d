"""Keywords written against a parenthesised or literal receiver: the rewrite must keep a token boundary."""
import torch


def next_power(n):
    return not(n - 1).bit_length()


def width(n):
    return(n).bit_length()


def pick(a, n, b):
    x = a if(n).item() else 0
    y = a and(b).sum()
    z = a or(b).mean()
    w = a in(b).tolist()
    v = a is(b).detach()
    assert(n).numel()
    u = 1if{a}.pop()else 2
    t = [i for i in(b).unbind() if(i).any()]
    for item in(b).split(2):
        print(item)
    with(a).no_sync() as s:
        pass
    return x, y, z, w, v, u, t, s


def gen(n):
    yield(n).abs()
    raise(n).error()


async def run(model):
    return await(model).step()
