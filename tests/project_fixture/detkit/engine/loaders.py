from torch.utils.data import DataLoader

from detkit.engine.graphs import PairBatcher, batch_graphs


def graph_loaders(molecules, pairs):
    atoms = DataLoader(molecules, batch_size=16, shuffle=True, drop_last=True, collate_fn=batch_graphs)
    edges = DataLoader(pairs, batch_size=16, shuffle=True, drop_last=True, collate_fn=PairBatcher(pad=0))
    return atoms, edges
