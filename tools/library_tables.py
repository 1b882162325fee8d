"""Build ``rule_tables/library_classes.tsv``: classes of other libraries that derive from a torch base class
(``torch_geometric.loader.DataLoader`` is a ``torch.utils.data.DataLoader``), one row per spelling a user imports
in ``tools/curated/library_classes.csv``, each with the library source that shows the class statement and its
constructor. The model gives an instance of such a class the kind of its torch base (a loader, a dataset), so the
rules asking what a value is see it; for a loader, ``positionals`` are the DataLoader parameters its constructor's
positional arguments stand for, the rest reaching DataLoader through ``**kwargs``."""
from __future__ import annotations

from pathlib import Path

from curated_tables import read_curated, write_table

CURATED = Path(__file__).resolve().parent / "curated" / "library_classes.csv"
HEADER = "class\tbase\tpositionals\tsource"
# The torch base classes a row may name (npu_lint.analysis.kinds.BASE_KINDS), and DataLoader's parameters.
BASES = frozenset({"torch.nn.Module", "torch.optim.Optimizer", "torch.utils.data.Dataset",
                   "torch.utils.data.IterableDataset", "torch.utils.data.Sampler", "torch.utils.data.DataLoader",
                   "torch.optim.lr_scheduler.LRScheduler", "torch.autograd.Function"})
LOADER = "torch.utils.data.DataLoader"
LOADER_PARAMETERS = ("dataset", "batch_size", "shuffle", "sampler", "batch_sampler", "num_workers", "collate_fn",
                     "pin_memory", "drop_last")


def build(out_dir: Path) -> list[Path]:
    curated = read_curated(CURATED)
    rows = []
    for entry in curated:
        name, base, positionals = entry["class"].strip(), entry["base"].strip(), entry["positionals"].split()
        if base not in BASES:
            raise SystemExit(f"library_classes.csv: {name}: {base} is no torch base class the model knows")
        if not entry["evidence"].strip() or "@" not in entry["evidence"]:
            raise SystemExit(f"library_classes.csv: {name} needs evidence (repository path@commit: ...)")
        if name.split(".", 1)[0] == "torch":
            raise SystemExit(f"library_classes.csv: {name} is torch's own class")
        if positionals and (base != LOADER or not set(positionals) <= set(LOADER_PARAMETERS)):
            raise SystemExit(f"library_classes.csv: {name}: positionals name DataLoader parameters of a loader only")
        rows.append([name, base, " ".join(positionals), entry["evidence"].strip()])
    if len({row[0] for row in rows}) != len(rows):
        raise SystemExit("library_classes.csv: a class is listed twice")
    return write_table(out_dir, "library_classes.tsv", HEADER, rows)
