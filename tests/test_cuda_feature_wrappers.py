"""NPU201 at the call of a project function, or the making of a project class, built around a CUDA-only torch
feature (CUDA graph capture, ``rule_tables/cuda_features.tsv``), whatever the length of its body: petals'
``make_inference_graphed_callable(fn, args)``, d3rlpy's ``CudaGraphWrapper(self.update)``, colossalai's
``CUDAGraphRunner(model)``. Silent: a wrapper with an NPU arm, an ``nn.Module`` whose forward captures a graph (its
own capture lines are reported where they are written), a function that uses no graph API."""
from __future__ import annotations

import json
from pathlib import Path

from conftest import run, tool

GRAPHS = '''import torch
from torch import nn


def make_graphed(fn, sample_args, warmup=3):
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(warmup):
            fn(*sample_args)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = fn(*sample_args)

    def replay(*args):
        for dst, src in zip(sample_args, args):
            dst.copy_(src)
        graph.replay()
        return out
    return replay


class GraphRunner:
    def __init__(self, model):
        self.model = model
        self.graph = None

    def capture(self, x):
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self.out = self.model(x)


def make_portable(fn, sample_args):
    if hasattr(torch, "npu") and torch.npu.is_available():
        graph = torch.npu.NPUGraph()
    else:
        graph = torch.cuda.CUDAGraph()
    return graph


class GraphedBlock(nn.Module):
    def forward(self, x):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            y = x * 2
        return y


def warm(fn, x):
    return fn(x)
'''
USE = '''from pkg.graphs import GraphedBlock, GraphRunner, make_graphed, make_portable, warm


def build(model, fn, x):
    step = make_graphed(fn, (x,))
    runner = GraphRunner(model)
    portable = make_portable(fn, (x,))
    block = GraphedBlock()
    warm(fn, x)
    return step, runner, portable, block
'''


def test_a_project_cuda_graph_wrapper_is_a_cuda_use_where_it_is_called(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "graphs.py").write_text(GRAPHS)
    (tmp_path / "pkg" / "use.py").write_text(USE)
    done = run([tool("npu-lint"), "check", "--select", "NPU201", "--output-format", "json", "-q", "--no-cache",
                "--exit-zero", str(tmp_path)], cwd=tmp_path)
    found = {(d["location"]["row"], d["message"].split("(")[0]) for d in json.loads(done.stdout)
             if d["filename"].endswith("use.py")}
    assert found == {(5, "make_graphed"), (6, "GraphRunner")}, found
    assert all("torchair" in d["message"] for d in json.loads(done.stdout) if d["filename"].endswith("use.py"))
