"""A battery of hostile inputs through every front end (issue 11), with per-file cost.

    python benchmarks/adversarial.py [--keep DIR]

Builds a project of adversarial files (1,000-term chains, deep nesting, 100 lines of 980 terms, a 10 MB line, an
over-cap file, a FIFO, device links, a symlink loop, links out of the tree, odd names, odd encodings), then runs
``check``, ``check --fix`` (on a copy), ``flake8`` and ``analyse`` in every mode with ``-j 1`` and ``-j 2``, each as
a subprocess with a timeout: exit status, wall time, peak memory of that process, "Traceback" in its output.
Then ``check`` and the instrumenter on each file alone: the slowest file and the largest peak memory
(targets: 2 s / 500 MB per file in check, 10 s / 1 GB in instrumentation).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent


def build(root: Path) -> Path:
    project = root / "hostile"
    project.mkdir(parents=True)
    text = {
        "loader_sum.py": "import torch\nfrom torch.utils.data import DataLoader\nl = DataLoader(dataset="
                         + "+".join(["a"] * 329) + ", batch_size=8)\n",
        "item_sum.py": "import torch\nn = (" + "+".join(["t"] * 327) + ").item()\nx = torch.zeros(n)\n",
        "sigmoid_product.py": "import torch\ny = " + "*".join(["torch.sigmoid(x)"] * 985) + "\n",
        "silu_lines.py": "import torch\n" + ("y = " + "*".join(["x * torch.sigmoid(x)"] * 980) + "\n") * 100,
        "mask_chain.py": "import torch\nt" + ".a" * 1000 + "[mask] = 0\n",
        "call_chain.py": "import torch\ny = x" + ".relu()" * 1000 + "\n",
        # a chain of string methods in a function's return (its receiver was asked twice per link: 2^n, nougat-ocr's
        # markdown parser hung the project index)
        "string_chain.py": "import torch\ndef clean(s):\n    return s" + ".replace('a', 'b')" * 300 + "\n",
        # lookups and subscripts that ask their receiver from several places (each link doubled the questions)
        "lookup_chain.py": "import torch\ndef f(d, x):\n    y = d" + ".get('a')[0]" * 300 + "\n    z = x"
                           + "[0].a.b(1)" * 300 + "\n    return y, z\n",
        "nested_calls.py": "import torch\ny = " + "torch.abs(" * 180 + "x" + ")" * 180 + "\n",
        "nested_lambdas.py": "import torch\nf = " + "lambda: " * 319 + "torch.zeros(1).cuda()\n",
        # a full stop, then 60 comment lines (the text pre-filter's pattern backtracked exponentially: joeynmt 21 s)
        "comment_blocks.py": "import torch\ndef f(x):\n    y = x.sum()\n    # done.\n" + "    # a b c d e f g h\n" * 60
                             + "    return y\n",
        "long_sum.py": "import torch\ndef f(t):\n    return " + " + ".join(["t.sum()"] * 1000) + "\n",
        "ten_mb_line.py": "import torch\nx = '" + "a" * (10 * 1024 * 1024 - 200) + "'\nm.cuda()\n",
        "over_cap.py": "import torch\n" + "x = 1\n" * (11 * 1024 * 1024 // 6),
        "nul.py": "import torch\x00\nm.cuda()\n",
        "empty.py": "",
        "\r=1+cmd|' calc'!A0.py": "import torch\nm.cuda()\n",
        "new\nline.py": "import torch\nm.cuda()\n",
        "=HYPERLINK(1).py": "import torch\nq = torch.quantize_per_tensor(x, 0.1, 0, torch.quint8)\n",
        "python312.py": "type Alias = int\ndef f[T](x: T) -> T:\n    return x.cuda()\n",
        # one module-level list tested in 1,500 functions; 600 kept-index loops in one function (both once walked
        # the whole scope per test: 56 s and 11 s)
        "flag_tests.py": "import torch\nCHECKS = []\n" + "".join(
            f"def f{k}(x: torch.Tensor):\n    if all(CHECKS):\n        x = torch.relu(x)\n    return x\n"
            for k in range(1500)),
        "kept_loops.py": "import torch\ndef big(t, x):\n" + "".join(
            f"    keep{k} = []\n    for j in range(len(t)):\n        if t[j].item() > {k}:\n"
            f"            keep{k}.append(j)\n    y{k} = torch.tensor(keep{k})\n" for k in range(600)),
        "lambda_bodies.py": "import torch\nf = lambda xs: torch.cat(xs)\ng = lambda n: torch.zeros(n)\n",
        # 1,600 rebinds of one index name (a lookup per use and binding was cubic: 47 s), 1,600 evaluation loaders in
        # one module (a walk per loader), 1,600 concatenations in one beam loop (a walk of the loop per one)
        "index_rebinds.py": "import torch\nfrom torch_scatter import scatter_add\ndef f(inputs, x, y):\n" + "".join(
            f"    idx = inputs['i{k}']\n    y = scatter_add(x, idx, dim_size=int(idx[-1]) + 1)\n"
            f"    z{k} = x[:int(idx[0])]\n" for k in range(1600)),
        "eval_loaders.py": "import torch\nfrom torch.utils.data import DataLoader\nmodel = torch.nn.Linear(2, 2)\n"
        "ds = []\n" + "".join(f"loader{k} = DataLoader(ds, batch_size=8)\nwith torch.no_grad():\n"
                             f"    for b in loader{k}:\n        model(b)\n" for k in range(1600)),
        "beam_concats.py": "import torch\ndef f(model, prefixes, k, steps):\n    for step in range(steps):\n" + "".join(
            "        ids = model(prefixes).topk(k)[1]\n        prefixes = prefixes.gather(1, ids)\n"
            "        prefixes = torch.cat([prefixes, ids], -1)\n" for _ in range(1600)),
        # 150 appends to one list in a loop, then 150 joins of it (each join asked about every append, each append
        # walked its loop anew: 47 s)
        "append_joins.py": "import torch\ndef f(xs, m):\n    out = []\n    for x in xs:\n" + "".join(
            f"        out.append(x[{k}:{k}+m])\n" for k in range(150)) + "".join(
            f"    y{k} = torch.cat(out)\n" for k in range(150)),
        # a name rebound under 24 ``if``s in a loop, then passed to the file's own sizing helper (torch_geometric's
        # ``BasicGNN.forward``): every binding reaching every other, the may-query followed each path (2**k) anew
        "loop_rebinds.py": "import torch\ndef make(k):\n    return torch.zeros(k)\ndef f(convs, flags, x):\n"
        "    for conv in convs:\n" + "".join(f"        if flags[{k}]:\n            x = conv(x, {k})\n" for k in range(24))
        + "        y = make(x)\n    return y\n",
    }
    for name, body in text.items():
        (project / name).write_text(body, encoding="utf-8")
    (project / "latin1.py").write_bytes("# -*- coding: latin-1 -*-\nimport torch\n# café\nm.cuda()\n".encode("latin-1"))
    (project / "utf16.py").write_bytes("import torch\nm.cuda()\n".encode("utf-16"))
    (project / "bad_cookie.py").write_bytes(b"\xef\xbb\xbf# coding: latin-1\nimport torch\n")
    with open(os.path.join(os.fsencode(project), b"bytes\xff.py"), "w") as handle:
        handle.write("import torch\nm.cuda()\n")
    os.mkfifo(project / "fifo.py")
    os.symlink("/dev/zero", project / "zero.py")
    os.symlink("/dev/null", project / "null.py")
    os.symlink(project / "loop_b.py", project / "loop_a.py")
    os.symlink(project / "loop_a.py", project / "loop_b.py")
    os.symlink("/etc/passwd", project / "passwd.py")
    os.symlink(project, project / "self_link")
    (project / "folder.py").mkdir()
    (project / "locked").mkdir()
    (project / "locked" / "x.py").write_text("m.cuda()\n")
    os.chmod(project / "locked", 0)
    (project / "vendored").mkdir()
    (project / "vendored" / "pyproject.toml").write_text("[project]\nname = {{ cookiecutter.name }}\n")
    (project / "vendored" / "a.py").write_text("import torch\nm.cuda()\n")
    return project


def measured(command: list[str], timeout: float) -> tuple[object, float, float, int]:
    """(exit status or HUNG, CPU seconds, peak RSS in MB of that process, tracebacks in its output). CPU time, not
    wall time: the machine is shared."""
    began = time.perf_counter()
    with tempfile.TemporaryFile() as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   start_new_session=True)
        deadline = began + timeout
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                os.killpg(process.pid, 9)
                os.wait4(process.pid, 0)
                return "HUNG", timeout, 0.0, 0
            time.sleep(0.02)
        process.returncode = os.waitstatus_to_exitcode(status)
        output.seek(0)
        tracebacks = output.read().count(b"Traceback")
    return process.returncode, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, tracebacks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="build the battery here and keep it")
    parser.add_argument("--timeout", type=float, default=300)
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="npu-lint-adversarial-"))
    project = build(root)
    out = root / "out"
    out.mkdir()
    copy = root / "copy"
    shutil.copytree(project, copy, symlinks=True,
                    ignore=lambda folder, names: [n for n in names if n in ("fifo.py", "locked")])
    npu = str(BIN / "npu-lint")
    regular = [str(p) for p in sorted(copy.glob("*.py")) if p.is_file() and not p.is_symlink()]
    runs = [("check", [npu, "check", "-q", str(project)]),
            ("check --fix --unsafe-fixes (copy)", [npu, "check", "-q", "--fix", "--unsafe-fixes", str(copy)]),
            ("flake8 (regular files only)", [str(BIN / "flake8"), "--select=NPU", *regular])]
    for mode in ("torch_apis", "affinity_apis", "dynamic_shape"):
        for jobs in ("1", "2"):
            runs.append((f"analyse -m {mode} -j {jobs}",
                         [npu, "analyse", "-i", str(project), "-o", str(out), "-m", mode, "-j", jobs, "--force"]))
    print(f"battery: {root}")
    failures = 0
    for label, command in runs:
        status, seconds, peak, tracebacks = measured(command, args.timeout)
        failures += status == "HUNG" or tracebacks > 0
        print(f"  {label:<36} exit {status!s:<4} {seconds:6.1f} s CPU  peak {peak:6.0f} MB  tracebacks {tracebacks}")
    instrument = ("import sys; from npu_lint.report.instrument import instrument, InstrumentError\n"
                  "from npu_lint.sources import read_source\ntry:\n    instrument(read_source(__import__('pathlib')"
                  ".Path(sys.argv[1])))\nexcept Exception as e:\n    print(type(e).__name__, e)\n")
    costs: dict[str, list[tuple[float, float, str]]] = {"check": [], "instrumentation": []}
    for path in sorted(copy.glob("*.py")):
        if not path.is_file() or path.is_symlink():
            continue
        for label, command in (("check", [npu, "check", "-q", str(path)]),
                               ("instrumentation", [sys.executable, "-c", instrument, str(path)])):
            status, seconds, peak, tracebacks = measured(command, args.timeout)
            failures += status == "HUNG" or tracebacks > 0
            costs[label].append((seconds, peak, path.name))
    for label, rows in costs.items():
        slow, big = max(rows), max(rows, key=lambda row: row[1])
        print(f"  per file, {label}: slowest {slow[0]:.2f} s CPU ({slow[2]!r}), "
              f"largest peak {big[1]:.0f} MB ({big[2]!r})"
              f" over {len(rows)} files (one process each, interpreter included)")
    os.chmod(project / "locked", 0o755)
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
