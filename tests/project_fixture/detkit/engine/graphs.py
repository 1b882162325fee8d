"""Graph batching: collate functions that the loaders module passes as ``collate_fn`` (no mention of it here)."""
import torch


def batch_graphs(graphs):
    atoms = torch.cat([g["atoms"] for g in graphs])  # expect: NPU409@12
    charges = torch.stack([g["charge"] for g in graphs])
    return atoms, charges


class PairBatcher:
    def __init__(self, pad: int = 0):
        self.pad = pad

    def __call__(self, pairs):
        return torch.cat([p["edges"] for p in pairs])  # expect: NPU409@15


def merge_atoms(molecules):
    return torch.cat([m["atoms"] for m in molecules])  # expect: NPU409@11 (atoms per molecule differ: the inverted path)
