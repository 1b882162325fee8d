from detkit.utils.loaders import get_dataloader


class Fitter:
    def __init__(self, ds, valid_ds, batch_size, drop_last=False):
        self.dl = get_dataloader(ds, batch_size=batch_size, shuffle=True, drop_last=drop_last)
        self.whole = get_dataloader(ds, batch_size=batch_size, shuffle=True, drop_last=True)
        self.unsaid = get_dataloader(valid_ds, batch_size=batch_size, shuffle=True)
