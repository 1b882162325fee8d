"""Pure-Python token lists padded to the longest of the batch (no torch here)."""


def encode_batch(rows, pad=0):
    longest = max(len(r) for r in rows)
    return [r + [pad] * (longest - len(r)) for r in rows]


class Vocab:
    def __init__(self, itos):
        self.stoi = {s: i for i, s in enumerate(itos)}

    def encode(self, sentences):
        n = max([len(s) for s in sentences])
        return [[self.stoi[w] for w in s] + [0] * (n - len(s)) for s in sentences]
