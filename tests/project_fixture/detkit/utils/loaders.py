from torch.utils.data import DataLoader


def get_dataloader(ds, **kwargs):
    """A loader factory that forwards its keywords (audio toolkits' ``get_dataloader``)."""
    return DataLoader(ds, **kwargs)
