"""NPU224: NVIDIA command-line tools run from Python (``nvidia-smi``); the tools are data (cuda_tools.tsv)."""
from __future__ import annotations

import ast
import re
from functools import lru_cache
from typing import Optional

from npu_lint.context import FileContext
from npu_lint.rules import Rule
from npu_lint.tables import keyed

FAMILY = "cuda"
# Calls that run a command or look one up on the PATH: ``subprocess.run/call/check_output/Popen``,
# ``os.system/popen``, ``shutil.which``.
_RUNNERS = frozenset({"run", "call", "check_call", "check_output", "Popen", "system", "popen", "getoutput",
                      "getstatusoutput", "which", "spawnlp", "execvp", "create_subprocess_exec",
                      "create_subprocess_shell"})
_RUNNER_MODULES = frozenset({"subprocess", "os", "shutil", "asyncio", "commands"})
_SEGMENTS = re.compile(r"\|\||&&|[|;&]")


@lru_cache(maxsize=1)
def _tools() -> dict[str, dict[str, str]]:
    return keyed("cuda_tools.tsv", "tool")


def command_tool(text: str) -> tuple[Optional[str], bool]:
    """The tool of the table a command line runs, and whether ``text`` reads as a command line (the tool
    alone, or followed by an option or a pipe) rather than prose that starts with the tool's name.

    >>> command_tool("nvidia-smi -L | wc -l")
    ('nvidia-smi', True)
    >>> command_tool("nvidia-smi not found")
    ('nvidia-smi', False)
    >>> command_tool("echo hi; nvidia-smi")
    ('nvidia-smi', True)
    >>> command_tool("nvidia-smi failed; using the CPU")
    ('nvidia-smi', False)
    >>> command_tool("ls -l")
    (None, False)
    """
    for segment in _SEGMENTS.split(text):
        words = segment.split()
        if not words:
            continue
        tool = re.split(r"[\\/]", words[0])[-1].removesuffix(".exe")
        if tool in _tools():
            return tool, len(words) == 1 or words[1].startswith("-")   # the tool alone or with an option
    return None, False


class CudaToolCommand(Rule):
    """An NVIDIA command-line tool run from Python (``nvidia-smi``).

    What it does:
        Flags string literals that run ``nvidia-smi`` (the tools of ``cuda_tools.tsv``): an argument of
        ``subprocess.run`` / ``check_output`` / ``Popen``, ``os.system`` / ``os.popen`` or ``shutil.which``
        (also as the first item of an argument list, the start of an f-string, or split into one with
        ``"...".split()`` / ``shlex.split``), and command lines kept in a variable or returned
        (``cmd = "nvidia-smi -L | wc -l"``, ``cmd = ["nvidia-smi", "-q"]``).
    Why it matters on NPU:
        An Ascend host has no NVIDIA driver: the command is not found, and code that counts devices or
        reads memory through it sees no device at all. The Ascend tool is ``npu-smi``; from Python,
        ``torch_npu.npu.device_count()`` and ``torch_npu.npu.mem_get_info()`` need no subprocess.
    Example:
        n = int(subprocess.run("nvidia-smi -L | wc -l", shell=True, capture_output=True).stdout)
    Use instead:
        n = torch_npu.npu.device_count()
    Fix safety:
        No fix: the output formats of the two tools differ.
    """

    code = "NPU224"
    name = "cuda-tool-command"
    family = FAMILY
    node_types = (ast.Constant,)
    constant_types = (str,)   # dispatch: string constants only
    triggers = ("nvidia-smi",)
    message = "{tool} is an NVIDIA tool, absent on an Ascend host: use {npu}"
    must_fire = ("import subprocess\nout = subprocess.check_output(['nvidia-smi', '--query-gpu=count'])\n",
                 "import os, platform, subprocess\n"
                 "cmd = 'nvidia-smi -L | wc -l' if platform.system() == 'Linux' else 'nvidia-smi -L | find /c /v \"\"'\n"
                 "n = int(subprocess.run(cmd, shell=True, capture_output=True).stdout.decode())\n",
                 "import shutil\ndef smi():\n    command = shutil.which('nvidia-smi')\n    return command\n",
                 "import os\nos.system('nvidia-smi')\n",
                 "import os\ndef smi(gpu):\n    return os.popen(f'nvidia-smi -i {gpu} -q').read()\n",
                 "import subprocess\nout = subprocess.check_output('nvidia-smi --query-gpu=memory.free --format=csv'.split())\n",
                 "import shlex, subprocess\nsubprocess.run(shlex.split('nvidia-smi -L'))\n",
                 "import subprocess\ncmd = ['nvidia-smi', '--query-gpu=memory.used', '--format=csv']\n"
                 "out = subprocess.check_output(cmd)\n")
    must_not_fire = ("import logging\nlogging.warning('nvidia-smi not found, assuming no GPU')\n",
                     "def smi():\n    '''Run nvidia-smi -L and count the lines.'''\n",
                     "import subprocess\nsubprocess.run(['npu-smi', 'info'])\n",
                     "import os\nhelp_text = 'nvidia-smi shows the GPUs'\n",
                     "import os\nmsg = 'nvidia-smi failed; using the CPU'\n",
                     "def f(log):\n    log.run('nvidia-smi')\n",
                     "import logging\ndef f(gpu):\n    logging.warning(f'nvidia-smi failed on {gpu}')\n",
                     "words = ['nvidia-smi', 'shows', 'the', 'GPUs']\n",
                     "names = 'nvidia-smi npu-smi'.split()\n",
                     "def hint(err):\n    note = f'nvidia-smi -L failed ({err}); is the driver installed?'\n    return note\n")

    def check(self, node: ast.Constant, ctx: FileContext) -> None:
        if not isinstance(node.value, str) or "nvidia-smi" not in node.value:
            return
        tool, command = command_tool(node.value)
        if tool is None:
            return
        command_node = _command(node, ctx)
        if isinstance(command_node, (ast.List, ast.Tuple)) and len(command_node.elts) > 1:
            second = command_node.elts[1]   # ``["nvidia-smi", "-q"]``, not ``["nvidia-smi", "shows", ...]``
            command = not isinstance(second, ast.Constant) or str(second.value).startswith("-")
        kept = command and not isinstance(command_node, ast.JoinedStr) and _kept(command_node, ctx)
        if command_node is None or not (_run_argument(command_node, ctx) or kept):
            return      # an f-string kept in a name is as often a message (``f"nvidia-smi -L failed ({err})"``)
        parent = ctx.parent(node)   # an f-string's parts have no position of their own before Python 3.12
        anchor = parent if isinstance(parent, ast.JoinedStr) else node
        ctx.report(anchor, self.message.format(tool=tool, npu=_tools()[tool]["npu_alternative"]), tool)


def _command(node: ast.Constant, ctx: FileContext) -> Optional[ast.AST]:
    """The expression that holds the command line starting with ``node``: the literal itself, the f-string it
    starts, ``"...".split()`` / ``shlex.split("...")`` of it, or the argument list it is the first item of;
    None when the literal is inside an f-string but does not start it."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.JoinedStr):
        if not parent.values or parent.values[0] is not node:
            return None
        node, parent = parent, ctx.parent(parent)
    if isinstance(parent, ast.Attribute) and parent.attr == "split":
        call = ctx.parent(parent)
        if isinstance(call, ast.Call) and call.func is parent:
            node, parent = call, ctx.parent(call)
    elif isinstance(parent, ast.Call) and parent.args and parent.args[0] is node \
            and ctx.resolver.qualname(parent.func) == "shlex.split":
        node, parent = parent, ctx.parent(parent)
    if isinstance(parent, (ast.List, ast.Tuple)) and parent.elts and parent.elts[0] is node:
        node = parent
    return node


def _run_argument(node: ast.AST, ctx: FileContext) -> bool:
    """``subprocess.run("nvidia-smi ...")``, ``check_output(["nvidia-smi", ...])``, ``shutil.which("nvidia-smi")``."""
    parent = ctx.parent(node)
    if not isinstance(parent, ast.Call) or node not in parent.args:
        return False
    module, _, name = (ctx.resolver.qualname(parent.func) or "").rpartition(".")
    return name in _RUNNERS and module.split(".")[0] in _RUNNER_MODULES


def _kept(node: ast.AST, ctx: FileContext) -> bool:
    """A command line assigned or returned (through ``a if c else b``), to be run elsewhere."""
    parent = ctx.parent(node)
    while isinstance(parent, ast.IfExp) and node is not parent.test:
        node, parent = parent, ctx.parent(parent)
    return isinstance(parent, (ast.Assign, ast.AnnAssign, ast.Return)) and parent.value is node
