"""Train a small ResNet-style classifier on synthetic data, on one or several NVIDIA GPUs.

Launch with ``torchrun --nproc_per_node=4 examples/train_gpu.py --epochs 10`` (or plain ``python`` for
one GPU). Nothing is downloaded: the images are random tensors with deterministic labels.
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
from torch.cuda.amp import GradScaler, autocast  # expect: NPU212@0
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset, DistributedSampler

# Use the first four GPUs unless the launcher (or the user) already chose.
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "0,1,2,3")  # expect: NPU219@22
os.environ["NCCL_DEBUG"] = os.environ.get("NCCL_DEBUG", "WARN")  # expect: NPU219@11 NPU219@42


def parse_args():
    parser = argparse.ArgumentParser(description="ResNet-ish training on synthetic data")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--device", default="cuda", choices=["cuda", "cpu"])  # expect: NPU205@44 NPU205@61
    parser.add_argument("--dist-backend", default="nccl", help="nccl for GPUs, gloo for CPU runs")  # expect: NPU207@50
    parser.add_argument("--amp", action="store_true", help="mixed precision with torch.cuda.amp")
    parser.add_argument("--channels-last", action="store_true")
    parser.add_argument("--script-loss", action="store_true", help="compile the loss with TorchScript")
    parser.add_argument("--resume", default="", help="checkpoint to resume from")
    parser.add_argument("--out-dir", default="checkpoints")
    return parser.parse_args()


class SyntheticImages(Dataset):
    """Random 3x64x64 images; the label is a fixed function of the index, so the model can learn it."""

    def __init__(self, size=20_000, num_classes=100, image_size=64):
        self.size, self.num_classes, self.image_size = size, num_classes, image_size

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        generator = torch.Generator().manual_seed(index)
        image = torch.randn(3, self.image_size, self.image_size, generator=generator)
        return image, index % self.num_classes


class BasicBlock(nn.Module):
    def __init__(self, in_ch, out_ch, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_ch, out_ch, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(out_ch)
        self.conv2 = nn.Conv2d(out_ch, out_ch, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_ch)
        self.shortcut = nn.Identity()
        if stride != 1 or in_ch != out_ch:
            self.shortcut = nn.Sequential(nn.Conv2d(in_ch, out_ch, 1, stride=stride, bias=False),
                                          nn.BatchNorm2d(out_ch))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.shortcut(x))


class ResNetSmall(nn.Module):
    def __init__(self, num_classes=100, widths=(64, 128, 256)):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, widths[0], 3, padding=1, bias=False),
                                  nn.BatchNorm2d(widths[0]), nn.ReLU(inplace=True))
        layers, in_ch = [], widths[0]
        for i, width in enumerate(widths):
            layers += [BasicBlock(in_ch, width, stride=1 if i == 0 else 2), BasicBlock(width, width)]
            in_ch = width
        self.layers = nn.Sequential(*layers)
        self.head = nn.Linear(in_ch, num_classes)

    def forward(self, x):
        x = self.layers(self.stem(x))
        return self.head(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def label_smoothing_loss(logits: torch.Tensor, target: torch.Tensor, eps: float = 0.1) -> torch.Tensor:
    log_probs = F.log_softmax(logits, dim=-1)
    nll = -log_probs.gather(dim=-1, index=target.unsqueeze(1)).squeeze(1)
    return ((1.0 - eps) * nll - eps * log_probs.mean(dim=-1)).mean()


@torch.jit.script  # runs eagerly under transfer_to_npu (2.3.1+): no finding
def accuracy(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return (logits.argmax(dim=-1) == target).float().mean()


def unwrap(model):
    return model.module if isinstance(model, (DDP, nn.DataParallel)) else model  # a type test: nothing to change


def setup_distributed(args):
    """Returns (rank, world_size, local_rank); a plain ``python`` launch is a world of one."""
    if "RANK" not in os.environ or "WORLD_SIZE" not in os.environ:
        return 0, 1, 0
    local_rank = int(os.environ["LOCAL_RANK"])
    if args.dist_backend == "nccl":  # expect: NPU208@28
        if not dist.is_nccl_available():  # expect: NPU207@15
            raise RuntimeError("this PyTorch build has no NCCL; use --dist-backend gloo")
        torch.cuda.set_device(local_rank)  # expect: NPU201@8
        os.environ.setdefault("TORCH_NCCL_ASYNC_ERROR_HANDLING", "1")  # expect: NPU219@30
    dist.init_process_group(backend=args.dist_backend, init_method="env://")
    return dist.get_rank(), dist.get_world_size(), local_rank


def pick_device(args, local_rank):
    if args.device == "cuda" and torch.cuda.is_available():  # expect: NPU206@22 NPU201@33
        device = torch.device("cuda", local_rank)  # expect: NPU205@30
        torch.backends.cudnn.benchmark = True  # expect: NPU213@8
        # TF32 tensor cores exist on Ampere (sm_80) and newer only.
        if torch.cuda.get_device_capability(device) >= (8, 0):  # expect: NPU202@11
            torch.backends.cuda.matmul.allow_tf32 = True  # expect: NPU214@12
            torch.backends.cudnn.allow_tf32 = True  # expect: NPU213@12
        name = torch.cuda.get_device_name(device)  # expect: NPU201@15
        total_gib = torch.cuda.get_device_properties(device).total_memory / 2**30  # expect: NPU201@20
        print(f"rank-local device {local_rank}: {name}, {total_gib:.0f} GiB")
        return device
    return torch.device("cpu")


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct = total = 0
    for images, labels in loader:
        images, labels = images.to(device, non_blocking=True), labels.to(device, non_blocking=True)
        with autocast(enabled=images.device.type == "cuda"):  # expect: NPU212@13 NPU206@52
            logits = model(images)
        correct += (logits.argmax(dim=-1) == labels).sum().item()
        total += labels.numel()
    if dist.is_initialized():
        counts = torch.tensor([correct, total], dtype=torch.float64, device=device)
        dist.all_reduce(counts)
        correct, total = counts.tolist()
    return correct / max(total, 1)


def save_checkpoint(model, optimizer, scaler, epoch, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    state = {"model": unwrap(model).state_dict(), "optimizer": optimizer.state_dict(),
             "scaler": scaler.state_dict(), "epoch": epoch}
    path = os.path.join(out_dir, f"epoch_{epoch:03d}.pt")
    torch.save(state, path + ".tmp")
    os.replace(path + ".tmp", path)


def main():
    args = parse_args()
    rank, world_size, local_rank = setup_distributed(args)
    device = pick_device(args, local_rank)
    torch.manual_seed(1234 + rank)
    if device.type == "cuda":  # expect: NPU206@22
        torch.cuda.manual_seed_all(1234 + rank)  # expect: NPU201@8

    train_set, val_set = SyntheticImages(), SyntheticImages(size=2_000)
    sampler = DistributedSampler(train_set, shuffle=True) if world_size > 1 else None
    loader = DataLoader(train_set, batch_size=args.batch_size, sampler=sampler, shuffle=sampler is None,
                        num_workers=4, pin_memory=True, drop_last=True, persistent_workers=True)
    val_loader = DataLoader(val_set, batch_size=256, num_workers=2, pin_memory=True)

    model = ResNetSmall().to(device)
    if args.channels_last:
        model = model.to(memory_format=torch.channels_last)  # expect: NPU211@39
    if world_size > 1:
        model = nn.SyncBatchNorm.convert_sync_batchnorm(model)
        model = DDP(model, device_ids=[local_rank], output_device=local_rank)
    elif torch.cuda.device_count() > 1:  # expect: NPU201@9
        print("single process with several GPUs: falling back to DataParallel")
        model = nn.DataParallel(model).cuda()  # expect: NPU220@16 NPU203@16

    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4, nesterov=True)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr,
                                                    total_steps=args.epochs * len(loader))
    scaler = GradScaler(enabled=args.amp)  # expect: NPU212@13
    loss_fn = torch.jit.script(label_smoothing_loss) if args.script_loss else label_smoothing_loss  # expect: NPU210@14

    start_epoch = 0
    if args.resume:
        checkpoint = torch.load(args.resume, map_location="cuda:0")  # expect: NPU205@58
        unwrap(model).load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        scaler.load_state_dict(checkpoint["scaler"])
        start_epoch = checkpoint["epoch"] + 1

    for epoch in range(start_epoch, args.epochs):
        if sampler is not None:
            sampler.set_epoch(epoch)
        model.train()
        torch.cuda.reset_peak_memory_stats()  # expect: NPU201@8
        tic = time.perf_counter()
        for step, (images, labels) in enumerate(loader):
            images = images.to(device, non_blocking=True)
            labels = labels.cuda(non_blocking=True)  # expect: NPU203@21
            if args.channels_last:
                images = images.contiguous(memory_format=torch.channels_last)  # expect: NPU211@57
            with autocast(enabled=args.amp, dtype=torch.float16):  # expect: NPU212@17
                logits = model(images)
                loss = loss_fn(logits, labels)
            optimizer.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0)
            scaler.step(optimizer)
            scaler.update()
            scheduler.step()
            if step % 50 == 0 and rank == 0:
                acc = accuracy(logits.float(), labels).item()
                where = "gpu" if images.is_cuda else "cpu"  # expect: NPU204@33
                print(f"epoch {epoch} step {step} loss {loss.item():.4f} acc {acc:.3f} ({where})")
        torch.cuda.synchronize()  # expect: NPU201@8
        elapsed = time.perf_counter() - tic
        peak_gib = torch.cuda.max_memory_allocated(device) / 2**30  # expect: NPU201@19
        val_acc = evaluate(model, val_loader, device)
        if rank == 0:
            throughput = len(loader) * args.batch_size * world_size / elapsed
            print(f"epoch {epoch}: {elapsed:.1f}s, {throughput:.0f} img/s, peak {peak_gib:.2f} GiB, "
                  f"val acc {val_acc:.3f}")
            save_checkpoint(model, optimizer, scaler, epoch, args.out_dir)
        torch.cuda.empty_cache()  # expect: NPU201@8

    if world_size > 1:
        dist.barrier()
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
