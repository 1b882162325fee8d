"""Train a small ResNet-style classifier on synthetic data, on one or several NVIDIA GPUs.

Launch with ``torchrun --nproc_per_node=8 train_gpu.py --epochs 10`` (or plain ``python`` for one GPU).
This is the kind of script teams bring to an Ascend migration: ``npu-lint check examples/`` lists
everything in it that breaks or changes meaning on an NPU.
"""
import argparse
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.cuda.amp import GradScaler, autocast
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset, DistributedSampler

os.environ.setdefault("CUDA_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7")  # expect: NPU219@22
os.environ["NCCL_DEBUG"] = "WARN"  # expect: NPU219@11


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--device", default="cuda", choices=["cuda", "cpu"])  # expect: NPU205@44 NPU205@61
    parser.add_argument("--backend", default="nccl")  # expect: NPU207@45
    parser.add_argument("--amp", action="store_true")
    parser.add_argument("--channels-last", action="store_true")
    parser.add_argument("--resume", default="")
    return parser.parse_args()


class SyntheticImages(Dataset):
    def __init__(self, size=10_000, num_classes=100):
        self.size, self.num_classes = size, num_classes

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        generator = torch.Generator().manual_seed(index)
        image = torch.randn(3, 64, 64, generator=generator)
        return image, index % self.num_classes


class Block(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        return F.relu(x + self.bn2(self.conv2(out)))


@torch.jit.script  # expect: NPU210@1
def label_smoothing_loss(logits: torch.Tensor, target: torch.Tensor, eps: float = 0.1) -> torch.Tensor:
    log_probs = F.log_softmax(logits, dim=-1)
    nll = -log_probs.gather(dim=-1, index=target.unsqueeze(1)).squeeze(1)
    return ((1.0 - eps) * nll - eps * log_probs.mean(dim=-1)).mean()


class Net(nn.Module):
    def __init__(self, num_classes=100, width=64):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, padding=1, bias=False), nn.BatchNorm2d(width), nn.ReLU())
        self.blocks = nn.Sequential(*[Block(width) for _ in range(4)])
        self.head = nn.Linear(width, num_classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.head(F.adaptive_avg_pool2d(x, 1).flatten(1))


def setup_distributed(args):
    if "RANK" not in os.environ:
        return 0, 1, 0
    dist.init_process_group(backend=args.backend)
    rank, world = dist.get_rank(), dist.get_world_size()
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    torch.cuda.set_device(local_rank)  # expect: NPU201@4
    if dist.get_backend() == "nccl" and rank == 0:  # expect: NPU208@29
        print(f"NCCL available: {dist.is_nccl_available()}")  # expect: NPU207@33
    return rank, world, local_rank


def main():
    args = parse_args()
    rank, world, local_rank = setup_distributed(args)
    device = torch.device("cuda", local_rank) if torch.cuda.is_available() else torch.device("cpu")  # expect: NPU205@26 NPU201@49
    torch.backends.cudnn.benchmark = True  # expect: NPU213@4
    torch.backends.cuda.matmul.allow_tf32 = True  # expect: NPU214@4
    torch.manual_seed(0)
    torch.cuda.manual_seed_all(0)  # expect: NPU201@4

    # Tensor-core friendly settings only on Ampere or newer.
    if torch.cuda.get_device_capability()[0] >= 8:  # expect: NPU202@7
        torch.set_float32_matmul_precision("high")

    dataset = SyntheticImages()
    sampler = DistributedSampler(dataset) if world > 1 else None
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler, shuffle=sampler is None,
                        num_workers=4, pin_memory=True, drop_last=True)

    model = Net().cuda()  # expect: NPU203@12
    if args.channels_last:
        model = model.to(memory_format=torch.channels_last)  # expect: NPU211@39
    if world > 1:
        model = DDP(model, device_ids=[local_rank])
    elif torch.cuda.device_count() > 1:  # expect: NPU201@9
        model = nn.DataParallel(model)  # expect: NPU220@16

    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    scaler = GradScaler(enabled=args.amp)  # expect: NPU212@13

    start_epoch = 0
    if args.resume:
        state = torch.load(args.resume, map_location="cuda:0")  # expect: NPU205@53
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start_epoch = state["epoch"] + 1

    for epoch in range(start_epoch, args.epochs):
        if sampler is not None:
            sampler.set_epoch(epoch)
        model.train()
        torch.cuda.reset_peak_memory_stats()  # expect: NPU201@8
        tic = time.time()
        for step, (images, labels) in enumerate(loader):
            images = images.to(device, non_blocking=True)
            labels = labels.cuda(non_blocking=True)  # expect: NPU203@21
            if args.channels_last:
                images = images.contiguous(memory_format=torch.channels_last)  # expect: NPU211@57
            with autocast(enabled=args.amp):  # expect: NPU212@17
                loss = label_smoothing_loss(model(images), labels)
            optimizer.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            if step % 50 == 0 and rank == 0:
                on_gpu = images.is_cuda and images.device.type == "cuda"  # expect: NPU204@25 NPU206@66
                print(f"epoch {epoch} step {step} loss {loss.item():.3f} on_gpu={on_gpu}")
        scheduler.step()
        torch.cuda.synchronize()  # expect: NPU201@8
        if rank == 0:
            peak = torch.cuda.max_memory_allocated() / 2**30  # expect: NPU201@19
            print(f"epoch {epoch}: {time.time() - tic:.1f}s, peak memory {peak:.2f} GiB")
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch},
                       f"checkpoint_{epoch}.pt")
        torch.cuda.empty_cache()  # expect: NPU201@8

    if world > 1:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
