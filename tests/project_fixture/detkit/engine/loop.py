import torch as th

from detkit.engine.base import Anchors, BaseTrainer


class Trainer(BaseTrainer):
    def step(self, batch, anchors: Anchors):
        images, labels = self.split(batch)
        loss = self.model(images).mean() + labels.float().mean()
        self.optimizer.zero_grad()
        self.scaler.scale(loss).backward()
        self.scaler.step(self.optimizer)
        self.scaler.update()
        th.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        return anchors.expand(2), self.scores(images).any()

    def epoch(self, loader):
        for batch in self.batches(loader):
            batch.images.std()
        self.teacher.parameters()
