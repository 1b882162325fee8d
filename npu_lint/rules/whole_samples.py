"""NPU417: a loader that hands the model one whole file per batch (an audio file, an image, a video read whole).

The evidence is in the code, never in a name: the loader batches one sample at a time with the default collate
(``batch_size=1`` or DataLoader's default), its dataset is an instance of a class of the file whose
``__getitem__`` returns what a media reader decoded (``torchaudio.load``, ``soundfile.read``, ``librosa.load``,
``PIL.Image.open``, ``cv2.imread``, ``torchvision.io.read_image`` ..., also through the file's helpers and through a
function of another module the project index sees returning such a read), with nothing in ``__getitem__`` that
could fix the size (a window read, a slice, a crop / resize / pad / transform call, a callable attribute such as
``self.transform``), and a loop over the loader runs a model on the batch (eval_batches.py's question)."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.library_classes import loader_parameters
from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES, Rule, short_source
from npu_lint.rules.dynamic_batches import _LOADER, _LOADER_PARAMETERS, _built_loader, _constant
from npu_lint.rules.eval_batches import _derived, _takes, _takes_one
from npu_lint.rules.loader_loops import loops_over
from npu_lint.rules.value_flow import FAMILY

# Readers that decode a whole media file: its length or size is the file's.
_READERS = frozenset({
    "torchaudio.load", "torchaudio.backend.sox_io_backend.load", "torchaudio.backend.soundfile_backend.load",
    "soundfile.read", "librosa.load", "librosa.core.load", "scipy.io.wavfile.read", "audiofile.read",
    "pydub.AudioSegment.from_file", "PIL.Image.open", "cv2.imread", "imageio.imread", "imageio.v2.imread",
    "imageio.v3.imread", "skimage.io.imread", "torchvision.io.read_image", "torchvision.io.decode_image",
    "torchvision.io.read_video", "tifffile.imread"})
# A reader's keywords that read a window of the file (a fixed number of frames from an offset).
_WINDOW = frozenset({"num_frames", "frame_offset", "frames", "start", "stop", "offset", "duration"})
# Words of a callee that may bring every sample to one size.
# (a random draw picks a crop's start: ``random.randint``, ``np.random.uniform``; ``torch.randn`` dither does not)
_FIXING = ("crop", "resiz", "pad", "segment", "chunk", "trim", "fix", "interp", "random", "randint", "randrange",
           "uniform", "transform", "tfm", "aug", "scale", "window", "clip", "cut", "compose", "truncat", "max_len",
           "split", "tile", "patch")
_DEPTH = 2


class VariableSizeSamples(Rule):
    """A loader that hands the model one whole file per batch, at the file's own length or size.

    What it does:
        Flags a ``DataLoader`` (or a loader the file's helper or another module's factory builds) with a batch size
        of 1 (given or DataLoader's default), no ``batch_sampler`` and no ``collate_fn``, whose dataset is an
        instance of a class of the file whose ``__getitem__`` returns a file decoded whole: the result of a media
        reader (``torchaudio.load``, ``soundfile.read``, ``librosa.load``, ``scipy.io.wavfile.read``,
        ``PIL.Image.open``, ``cv2.imread``, ``imageio.imread``, ``torchvision.io.read_image`` / ``read_video``),
        called there, in a method or function of the file it calls, or in a function of another module that returns
        such a read (the project index), when a loop over the loader runs a model on the batch (calls an
        ``nn.Module`` with it, or a project callable without gradients, or hands it to the file's function that
        does: as NPU415 reads it). Left alone: a reader given a window (``num_frames=``, ``offset=``,
        ``duration=``, ``frame_offset=``), a ``__getitem__`` (or a helper it calls) that slices, or calls anything
        whose name says crop, resize, pad, segment, chunk, trim, transform, augment, scale, window, clip, cut,
        split, tile or random (``self.transform(img)``, ``A.Compose``, ``random_crop``), or calls a callable
        attribute it was given (``self.tfm(x)``): any of them may bring every sample to one size; larger batches
        (the default collate stacks only equal sizes, so they are equal); a loader nobody runs a model on.
    Why it matters on NPU:
        Each batch is one whole recording or image at its own length or size: every operator of the model's
        forward sees a new shape almost every batch and compiles again on NPU (with graph capture or
        static-shape execution, a fallback), so evaluation or inference over a folder of files spends its time
        compiling.
    Example:
        class Files(Dataset):
            def __getitem__(self, i):
                wav, sr = torchaudio.load(self.files[i])
                return wav
        loader = DataLoader(Files(paths))
        with torch.no_grad():
            for wav in loader:
                enhanced = model(wav.to(device))
    Use instead:
        Cut each file into fixed-length chunks (overlap-add the outputs back), or pad every input up to one of a
        few bucket lengths (a multiple of a chunk) and crop the output; for images, resize or pad to a few fixed
        sizes.
    Fix safety:
        No automatic fix: chunking or padding changes what the model sees at the edges.
    """

    code = "NPU417"
    name = "variable-size-samples"
    family = FAMILY
    node_types = (ast.Call,)
    triggers = ("__getitem__",)
    message = "{what}: every batch is one whole file at its own length or size ({read} in {dataset}.__getitem__, nothing crops, resizes or pads it), a new shape for the model's forward almost every batch, a recompile per size on NPU; cut the files into fixed-length chunks or pad them to a few bucket sizes"
    must_fire = (
        # a dataset of whole audio files, DataLoader's default batch size, a model run on each file
        "import torch\nimport torchaudio\nfrom torch.utils.data import DataLoader, Dataset\n"
        "class Files(Dataset):\n    def __init__(self, files):\n        self.files = files\n"
        "    def __getitem__(self, i):\n        wav, sr = torchaudio.load(self.files[i])\n        return wav, sr\n"
        "    def __len__(self):\n        return len(self.files)\n"
        "def run(model: torch.nn.Module, files, device):\n    loader = DataLoader(Files(files), num_workers=2)\n"
        "    with torch.no_grad():\n        for wav, sr in loader:\n            out = model(wav.to(device))\n",
        # batch_size=1 given, an image read whole through a helper method, the batch handed to the file's function
        "import torch\nimport cv2\nfrom torch.utils.data import DataLoader, Dataset\n"
        "class Images(Dataset):\n    def _read(self, path):\n        img = cv2.imread(path)\n"
        "        return torch.from_numpy(img).permute(2, 0, 1).float()\n"
        "    def __getitem__(self, i):\n        image = self._read(self.paths[i])\n        return image\n"
        "def infer(net, x):\n    net.eval()\n    with torch.no_grad():\n        return net(x)\n"
        "def main(paths):\n    ds = Images(paths)\n    loader = DataLoader(ds, batch_size=1, shuffle=False)\n"
        "    for image in loader:\n        infer(net, image.cuda())\n",
        # a file helper of the module that returns a read
        "import torch\nimport soundfile as sf\nfrom torch.utils.data import DataLoader, Dataset\n"
        "def load_wav(path):\n    data, sr = sf.read(path, dtype='float32')\n    return torch.from_numpy(data)\n"
        "class Utterances(Dataset):\n    def __getitem__(self, idx):\n        noisy = load_wav(self.noisy[idx])\n"
        "        clean = load_wav(self.clean[idx])\n        return noisy, clean\n"
        "def evaluate(model: torch.nn.Module, ds):\n    for noisy, clean in DataLoader(ds, batch_size=1):\n"
        "        est = model(noisy)\n"
        "evaluate(Net(), Utterances())\n",
        # dither added to the whole file (no random size); the model put in evaluation mode by the function
        "import torch\nimport torchaudio\nfrom torch.utils.data import DataLoader, Dataset\n"
        "class Utts(Dataset):\n    def __getitem__(self, i):\n        speech, fs = torchaudio.load(self.paths[i])\n"
        "        speech += 10e-6 * torch.randn(speech.shape)\n        return speech.squeeze(), self.ids[i]\n"
        "def extract(model, paths, device):\n    model.eval()\n    loader = DataLoader(Utts(paths), batch_size=1)\n"
        "    for speech, uid in loader:\n        emb = model(speech.to(device))\n")
    must_not_fire = (
        # the batches written to a file under no_grad: no model runs on them
        "import torch\nimport torchaudio\nfrom torch.utils.data import DataLoader, Dataset\n"
        "class Files(Dataset):\n    def __getitem__(self, i):\n        wav, sr = torchaudio.load(self.files[i])\n"
        "        return {'data': wav, 'name': self.files[i]}\n"
        "def pack(files, grp):\n    with torch.no_grad():\n"
        "        for sample in DataLoader(Files(files), batch_size=1):\n"
        "            grp.create_dataset(sample['name'][0], data=sample['data'][0].numpy())\n",
        # a fixed window read from each file; a random crop; a transform that may resize
        "import torch\nimport torchaudio\nfrom torch.utils.data import DataLoader, Dataset\n"
        "class Files(Dataset):\n    def __getitem__(self, i):\n"
        "        wav, sr = torchaudio.load(self.files[i], frame_offset=self.offsets[i], num_frames=16000)\n"
        "        return wav\n"
        "def run(model: torch.nn.Module, files):\n    for wav in DataLoader(Files(files)):\n        model(wav)\n",
        "import torch\nimport torchaudio\nfrom torch.utils.data import DataLoader, Dataset\n"
        "class Files(Dataset):\n    def __getitem__(self, i):\n        wav, sr = torchaudio.load(self.files[i])\n"
        "        start = random.randint(0, wav.shape[-1] - self.n)\n        return wav[:, start:start + self.n]\n"
        "def run(model: torch.nn.Module, files):\n    for wav in DataLoader(Files(files)):\n        model(wav)\n",
        "import torch\nfrom PIL import Image\nfrom torch.utils.data import DataLoader, Dataset\n"
        "class Images(Dataset):\n    def __getitem__(self, i):\n        img = Image.open(self.paths[i]).convert('RGB')\n"
        "        return self.transform(img)\n"
        "def run(model: torch.nn.Module, paths):\n    for x in DataLoader(Images(paths), batch_size=1):\n"
        "        model(x)\n",
        # batches of 32 (the default collate stacks equal sizes only); a padding collate; no model on the batch
        "import torch\nimport torchaudio\nfrom torch.utils.data import DataLoader, Dataset\n"
        "class Files(Dataset):\n    def __getitem__(self, i):\n        return torchaudio.load(self.files[i])[0]\n"
        "def run(model: torch.nn.Module, files):\n    for wav in DataLoader(Files(files), batch_size=32):\n"
        "        model(wav)\n",
        "import torch\nimport torchaudio\nfrom torch.utils.data import DataLoader, Dataset\n"
        "class Files(Dataset):\n    def __getitem__(self, i):\n        return torchaudio.load(self.files[i])[0]\n"
        "def run(model: torch.nn.Module, files):\n"
        "    for wav in DataLoader(Files(files), batch_size=1, collate_fn=pad_to_bucket):\n        model(wav)\n",
        "import torch\nimport torchaudio\nfrom torch.utils.data import DataLoader, Dataset\n"
        "class Files(Dataset):\n    def __getitem__(self, i):\n        return torchaudio.load(self.files[i])[0]\n"
        "def stats(files):\n    total = 0.0\n    for wav in DataLoader(Files(files)):\n"
        "        total += float(wav.abs().mean())\n    return total\n",
        # the file is read but only its label is returned
        "import torch\nimport torchaudio\nfrom torch.utils.data import DataLoader, Dataset\n"
        "class Labels(Dataset):\n    def __getitem__(self, i):\n        wav, sr = torchaudio.load(self.files[i])\n"
        "        return self.labels[i]\n"
        "def run(model: torch.nn.Module, files):\n    for y in DataLoader(Labels(files)):\n        model(y)\n")

    def check(self, node: object, ctx: FileContext) -> None:
        assert isinstance(node, ast.Call)
        parameters = loader_parameters(ctx.resolver.qualname(node.func))
        if parameters is not None:   # torch's DataLoader or a library's subclass forwarding its keywords
            keywords = {kw.arg: kw.value for kw in node.keywords if kw.arg is not None}
            keywords.update(zip(parameters, node.args))
            if any(kw.arg is None for kw in node.keywords):
                return      # ``**kwargs`` may set the batch size or a collate function
        else:
            keywords = _built_loader(node, ctx) if ctx.resolver.kind_of(node) == "loader" else None
            if keywords is None or "batch_size" not in keywords or not node.args and "dataset" not in keywords:
                return      # another module's factory: only with its batch size given
            keywords = {**dict(zip(_LOADER_PARAMETERS[:1], node.args)), **keywords}
        if _constant(keywords.get("batch_size", ast.Constant(value=1))) != 1:
            return
        if any(_constant(keywords.get(k)) is not None for k in ("batch_sampler", "collate_fn") if k in keywords):
            return
        dataset = keywords.get("dataset")
        cls = _dataset_class(dataset, ctx) if dataset is not None else None
        if cls is None:
            return
        read = _whole_read(cls, ctx)
        if read is None:
            return
        if not any(_runs_model(loop, function, ctx, 0) for loop, function in _loops(node, ctx)):
            return
        what = "this DataLoader" if ctx.resolver.qualname(node.func) == _LOADER else short_source(node.func) + "(...)"
        ctx.report(node, self.message.format(what=what + " batches one sample at a time", read=read,
                                             dataset=cls.name), _LOADER)


def _loops(node: ast.Call, ctx: FileContext):
    """The loops over the loader: ``for b in DataLoader(...)`` (also through ``enumerate`` / ``tqdm``), then
    loader_loops.py's."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.Call) and node in parent.args:
        parent = ctx.parent(parent)
    if isinstance(parent, ast.For):
        yield parent, ctx.enclosing(parent, FUNCTION_TYPES)
    yield from loops_over(node, ctx)


_MODEL_METHODS = frozenset({"eval", "train", "load_state_dict", "parameters", "cuda", "npu", "half"})


def _runs_model(body: ast.AST, function: Optional[ast.AST], ctx: FileContext, depth: int,
                names: Optional[set[str]] = None) -> bool:
    """A call in ``body`` (a loop over the loader, or a helper the batch is handed to) runs a model on the batch:
    an ``nn.Module`` by the model, or a callable the code treats as a model (``model.eval()``,
    ``net.load_state_dict(...)``, ``model.cuda()`` in the same function or at module level), or the file's function
    or method the batch is handed to does so (two deep). Stricter than NPU415's question: an unknown call under
    ``no_grad`` is no model."""
    if names is None:
        assert isinstance(body, ast.For)
        names = {n.id for n in walk(body.target) if isinstance(n, ast.Name)}
    names = _derived(body, names)
    scope = ctx.resolver.scopes.scope_of(function) if ctx.resolver.scopes is not None \
        and isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    models: Optional[set[str]] = None
    for call in walk(body):
        if not isinstance(call, ast.Call) or not _takes(call, names):
            continue
        func = call.func
        if isinstance(func, ast.Attribute) and any(isinstance(n, ast.Name) and n.id in names for n in walk(func)):
            continue    # a method of the batch
        value = ctx.resolver.value_of(func, scope) if scope is not None else ctx.resolver.value_of(func)
        if value is not None and value[0] == "module":
            return True
        if models is None:
            models = _treated_as_models(function, ctx)
        if isinstance(func, (ast.Name, ast.Attribute)) and ast.unparse(func) in models:
            return True
        if depth < _DEPTH:
            helper, offset = _handed_to(call, function, ctx)
            if helper is not None:
                positional = [a.arg for a in helper.args.posonlyargs + helper.args.args][offset:]
                given = {positional[i] for i, a in enumerate(call.args) if i < len(positional) and _takes_one(a, names)}
                given |= {kw.arg for kw in call.keywords if kw.arg and _takes_one(kw.value, names)}
                if given and _runs_model(helper, helper, ctx, depth + 1, given):
                    return True
    return False


def _treated_as_models(function: Optional[ast.AST], ctx: FileContext) -> set[str]:
    """The names and attributes the function (and the module's top level) calls a model's own methods on
    (``model.eval()``, ``self.net.load_state_dict(sd)``)."""
    found: set[str] = set()
    bodies = [function] if function is not None else []
    for body in bodies:
        for call in walk(body):
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) \
                    and call.func.attr in _MODEL_METHODS and isinstance(call.func.value, (ast.Name, ast.Attribute)):
                found.add(ast.unparse(call.func.value))
    return found


def _handed_to(call: ast.Call, function: Optional[ast.AST], ctx: FileContext) -> tuple[Optional[ast.FunctionDef], int]:
    """The file's function (``enhance(model, audio)``) or the class's method (``self.infer(x)``) a call runs."""
    func = call.func
    if isinstance(func, ast.Name):
        definition = ctx.resolver.definition(func)
        return (definition, 0) if isinstance(definition, ast.FunctionDef) and definition is not function else (None, 0)
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self" \
            and function is not None:
        owner = ctx.enclosing(function, (ast.ClassDef,))
        if isinstance(owner, ast.ClassDef):
            method = _method(owner, func.attr)
            if method is not None and method is not function:
                return method, 1
    return None, 0


def _dataset_class(node: ast.AST, ctx: FileContext, depth: int = 0, scope=None) -> Optional[ast.ClassDef]:
    """The file's class the dataset is an instance of (``Files(paths)``, through a name bound once, or a
    parameter every call of its function in the file fills with one)."""
    if depth > 3:
        return None
    if isinstance(node, ast.Name):
        value = ctx.resolver.bound_value(node, scope)
        if value is not None:
            binding = ctx.resolver.binding(node, scope)
            return _dataset_class(value, ctx, depth + 1, binding.scope if binding is not None else scope)
        return _passed_class(node, ctx, depth, scope)
    if isinstance(node, ast.Call):
        definition = ctx.resolver.definition(node.func)
        return definition if isinstance(definition, ast.ClassDef) else None
    return None


def _passed_class(node: ast.Name, ctx: FileContext, depth: int, scope=None) -> Optional[ast.ClassDef]:
    """The class every call of the enclosing function passes as the parameter ``node`` (one at least)."""
    binding = ctx.resolver.binding(node, scope)
    function = binding.scope.node if binding is not None and binding.scope is not None else None
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    positional = [a.arg for a in function.args.posonlyargs + function.args.args]
    if node.id not in positional and node.id not in [a.arg for a in function.args.kwonlyargs]:
        return None
    found: Optional[ast.ClassDef] = None
    for call, scope, offset in ctx.resolver.call_sites(function):
        argument = next((kw.value for kw in call.keywords if kw.arg == node.id), None)
        if argument is None and node.id in positional:
            index = positional.index(node.id) - offset
            argument = call.args[index] if 0 <= index < len(call.args) else None
        cls = _dataset_class(argument, ctx, depth + 1, scope) if argument is not None else None
        if cls is None or (found is not None and cls is not found):
            return None
        found = cls
    return found


def _method(cls: ast.ClassDef, name: str) -> Optional[ast.FunctionDef]:
    return next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == name), None)


def _whole_read(cls: ast.ClassDef, ctx: FileContext) -> Optional[str]:
    """The reader whose whole file ``cls.__getitem__`` returns (a name for the message), else None: None too
    when anything there may bring the sample to a fixed size."""
    getitem = _method(cls, "__getitem__")
    if getitem is None:
        return None
    memo = ctx.scratch.setdefault("whole_reads", {})
    if id(getitem) not in memo:
        memo[id(getitem)] = _returned_read(getitem, cls, ctx)
    return memo[id(getitem)]


def _returned_read(function: ast.FunctionDef, cls: Optional[ast.ClassDef], ctx: FileContext,
                   depth: int = 0) -> Optional[str]:
    """The reader ``function`` returns the result of (itself or through the helpers it calls), when nothing in it
    (or in them) may fix the size; else None."""
    reads: dict[int, str] = {}      # id of a call -> the reader it returns
    for call in walk(function):
        if not isinstance(call, ast.Call):
            continue
        if _fixes(call, cls, ctx):
            return None
        name = ctx.resolver.qualname(call.func)
        if name in _READERS:
            if any(kw.arg in _WINDOW for kw in call.keywords):
                return None
            reads[id(call)] = name
            continue
        helper = _helper(call, cls, ctx)
        if helper is not None:
            if depth >= _DEPTH:
                continue
            inner = _returned_read(helper, cls if _is_method(call) else None, ctx, depth + 1)
            if inner is None and _has_fixing(helper, cls, ctx):
                return None
            if inner is not None:
                reads[id(call)] = inner
            continue
        if name is not None and ctx.project is not None and "." in name:
            chain = ctx.project.returned_leaf(name, ctx.module, _READERS.__contains__)
            if chain:
                reads[id(call)] = " → ".join(chain)
    if any(isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Slice)
           and (n.slice.lower is not None or n.slice.upper is not None) for n in walk(function)):
        return None     # a window of the sample: ``wav[:, start:start + n]``
    if not reads:
        return None
    holding = {n.id for child in walk(function) if isinstance(child, (ast.Assign, ast.AnnAssign))
               and child.value is not None and any(id(c) in reads for c in walk(child.value))
               for target in (child.targets if isinstance(child, ast.Assign) else [child.target])
               for n in walk(target) if isinstance(n, ast.Name)}
    holding = _derived(function, holding) if holding else holding
    for ret in walk(function):
        if not isinstance(ret, ast.Return) or ret.value is None:
            continue
        for n in walk(ret.value):
            if isinstance(n, ast.Call) and id(n) in reads:
                return reads[id(n)]
            if isinstance(n, ast.Name) and n.id in holding:
                return next(iter(reads.values()))
    return None


def _is_method(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) \
        and call.func.value.id == "self"


def _helper(call: ast.Call, cls: Optional[ast.ClassDef], ctx: FileContext) -> Optional[ast.FunctionDef]:
    """The file's function (``load_wav(path)``) or the class's method (``self._read(path)``) a call runs."""
    if _is_method(call) and cls is not None:
        assert isinstance(call.func, ast.Attribute)
        return _method(cls, call.func.attr)
    if isinstance(call.func, ast.Name):
        definition = ctx.resolver.definition(call.func)
        return definition if isinstance(definition, ast.FunctionDef) else None
    return None


def _callee_word(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr.lower()
    if isinstance(func, ast.Name):
        return func.id.lower()
    return ""


def _fixes(call: ast.Call, cls: Optional[ast.ClassDef], ctx: FileContext) -> bool:
    """The call may bring the sample to a fixed size: a callee whose name says so, or a callable attribute of
    ``self`` that is no method of the class (``self.transform(img)``, ``self.tfm(x)``)."""
    word = _callee_word(call)
    if any(part in word for part in _FIXING):
        return True
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self" \
            and cls is not None and _method(cls, func.attr) is None:
        return True
    if isinstance(func, ast.Subscript) or isinstance(func, ast.Call):
        return True     # ``self.transforms[k](x)``, ``get_tfm()(x)``
    return False


def _has_fixing(function: ast.FunctionDef, cls: Optional[ast.ClassDef], ctx: FileContext) -> bool:
    return any(isinstance(c, ast.Call) and _fixes(c, cls, ctx) for c in walk(function)) or any(
        isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Slice)
        and (n.slice.lower is not None or n.slice.upper is not None) for n in walk(function))

