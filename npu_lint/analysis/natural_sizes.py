"""Values whose shape is the input's own size: an image decoded from its file at its stored height and width, a
recording read whole at its own number of frames, a text tokenized without padding to a fixed length. Each new
input brings a new shape, so a model (or any device compute) they reach compiles again for it on NPU.

The sources are the readers of ``rule_tables/natural_size_sources.tsv`` (a file decoded whole: no window keyword
such as ``num_frames=`` or ``duration=``; the tuple element that holds the data) and Hugging Face tokenizer calls
(``tok(text, return_tensors="pt")``, ``tok.encode(...)``, ``apply_chat_template(...)``: any call given
``return_tensors=``) with no padding (absent, ``False`` or ``"do_not_pad"``: ``padding="max_length"`` fixes the
length, ``padding=True`` pads to the batch's longest, NPU405's question), on text that is not a constant, and no
image, audio or video input (a processor's image side resizes to its own fixed size). A resize that keeps the
input's aspect ratio (:mod:`npu_lint.analysis.aspect_resizes`) is a source too, and a resize to a size merely
derived from the input's own keeps the input's.

The size is kept through the names bound to such a value, tuple unpacking of a reader's result, subscripts by a
key or an index (``tokens["input_ids"]``, ``x[None]``, ``img[:, :, ::-1]``), the attributes ``input_ids`` / ``T``
/ ``data``, arithmetic (``img / 255.0``), the methods that only convert or move (``.convert("RGB")``, ``.to(dev)``,
``.float()``, ``.permute(...)``, ``.unsqueeze(0)``), the functions that make arrays or tensors of it
(``np.array``, ``np.transpose``, ``torch.from_numpy``, ``torch.tensor``, ``to_tensor``) and the file's own
functions that return such a value (followed two deep; through the project index, another module's function that
returns a reader's result). Anything else stops it: a resize, a crop, a pad, a slice with a bound, a transform
object, a call the model does not know. Unknown is no natural size. Nothing here is a rule: NPU419 asks
:func:`natural_source` of the values that reach a model or a device."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional

from npu_lint.analysis.aspect_resizes import ASPECT, aspect_resize, canvas_of_resize, own_size_resize, thumbnail_before
from npu_lint.analysis.nodes import walk
from npu_lint.analysis.scopes import DEF, LOOP, PARAM, VALUE, Scope
from npu_lint.analysis.summaries import return_statements
from npu_lint.tables import keyed

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

_TABLE = "natural_size_sources.tsv"
# Methods whose result has its receiver's shape: conversions, placement, dtype, axis moves, elementwise math.
KEEPING_METHODS = frozenset({
    "convert", "to", "cuda", "npu", "cpu", "float", "half", "double", "bfloat16", "long", "int", "bool", "type",
    "contiguous", "detach", "clone", "copy", "numpy", "astype", "unsqueeze", "squeeze", "permute", "transpose",
    "flip", "requires_grad_", "pin_memory", "div", "mul", "sub", "add", "div_", "mul_", "sub_", "add_",
    "unsqueeze_", "squeeze_", "to_dense", "type_as", "sigmoid", "abs", "clamp", "clip", "__array__"})
# Functions whose result has their first argument's shape (or adds a unit axis to it).
KEEPING_FUNCTIONS = frozenset({
    "numpy.array", "numpy.asarray", "numpy.ascontiguousarray", "numpy.asfarray", "numpy.float32",
    "numpy.transpose", "numpy.expand_dims", "numpy.moveaxis", "numpy.swapaxes", "numpy.squeeze", "numpy.flip",
    "numpy.fliplr", "numpy.flipud", "torch.from_numpy", "torch.tensor", "torch.as_tensor", "torch.Tensor",
    "torch.FloatTensor", "torch.LongTensor", "torch.unsqueeze", "torch.squeeze", "torch.permute",
    "torch.transpose", "torchvision.transforms.functional.to_tensor",
    "torchvision.transforms.functional.pil_to_tensor", "torchvision.transforms.functional.normalize",
    "torchvision.transforms.functional.to_pil_image", "torchvision.transforms.v2.functional.to_image",
    "torchvision.transforms.v2.functional.pil_to_tensor", "torchvision.transforms.v2.functional.normalize"})
_KEEPING_ATTRIBUTES = frozenset({"input_ids", "T", "mT", "data"})
# Inputs of a processor call that are not text: its image / audio side brings them to its own size.
_MEDIA_KEYWORDS = frozenset({"images", "image", "audio", "audios", "raw_speech", "videos", "video", "pixel_values",
                             "sampling_rate", "speech"})
_NO_PADDING = (False, "do_not_pad", None)
_TOKENIZER_METHODS = frozenset({"encode", "encode_plus", "apply_chat_template"})
# Attributes only a tokenizer has (a processor keeps them on its ``.tokenizer``).
_TOKENIZER_ATTRIBUTES = frozenset({"eos_token_id", "pad_token_id", "bos_token_id", "convert_tokens_to_ids",
                                   "convert_ids_to_tokens", "get_vocab", "vocab_size", "eos_token", "pad_token"})
_TOKEN_FIELDS = frozenset({"input_ids", "attention_mask", "token_type_ids"})
# Keywords only a tokenizer (or a processor's text side) takes: an image feature extractor has none of them.
_TOKENIZER_KEYWORDS = frozenset({"truncation", "max_length", "add_special_tokens", "return_attention_mask",
                                 "return_token_type_ids", "return_offsets_mapping", "is_split_into_words",
                                 "return_special_tokens_mask", "return_overflowing_tokens", "text_pair"})
_DEPTH = 12
_FRAMES = 2
# Calls that make a tensor of a Python list: where a list of token ids becomes the tensor that has its length.
_LIST_TENSORS = frozenset({"torch.tensor", "torch.as_tensor", "torch.LongTensor", "torch.IntTensor", "torch.Tensor"})
TOKEN_LIST = "holds the ids of a text tokenized without padding to a fixed length"


def sources() -> dict[str, dict[str, str]]:
    return keyed(_TABLE, "api")


def natural_source(resolver: "Resolver", node: ast.AST, scope: Optional[Scope], depth: int = 0,
                   frames: int = 0, element: Optional[int] = None,
                   parameter: Optional[tuple[ast.AST, str]] = None) -> Optional[tuple[ast.AST, str]]:
    """The call (in ``node``'s function) that gives ``node`` the input's own size, and why (for a message); None
    when ``node`` is no such value or the model cannot tell. ``element``: the tuple element of ``node`` asked for
    (a name unpacked from it). ``parameter``: (a function, one of its parameters) taken as the source instead: is
    ``node`` that parameter's value, kept whole (its argument node and "parameter" are returned)."""
    if depth > _DEPTH or node is None or resolver.scopes is None:
        return None
    if isinstance(node, ast.Name):
        if element is not None:
            return None
        shrunk = thumbnail_before(resolver, node, scope) if parameter is None else None
        if shrunk is not None:   # ``img.thumbnail((512, 512))`` earlier: the image's own aspect ratio kept
            return shrunk, ASPECT
        for binding in resolver.scopes.may_reach(node.id, scope, (node.lineno, node.col_offset)) if scope else ():
            if parameter is not None and binding.tag == PARAM and binding.name == parameter[1] \
                    and binding.scope.node is parameter[0]:
                return binding.node if binding.node is not None else node, "parameter"
            if binding.tag == LOOP and binding.path == (1,) and binding.scope.kind == "comprehension" \
                    and isinstance(binding.value, ast.Call) and isinstance(binding.value.func, ast.Attribute) \
                    and binding.value.func.attr == "items" and parameter is None:
                # ``{k: v.to(device) for k, v in inputs.items()}``: every entry of the processor's output
                found = natural_source(resolver, binding.value.func.value, binding.scope, depth + 1, frames)
                if found is not None:
                    return found
                continue
            if binding.tag != VALUE or not isinstance(binding.value, ast.AST) or len(binding.path) > 1:
                continue
            found = natural_source(resolver, binding.value, binding.scope, depth + 1, frames,
                                   binding.path[0] if binding.path else None, parameter=parameter)
            if found is not None:
                return found
        if parameter is None and depth <= 2:
            resize = canvas_of_resize(resolver, node, scope, depth)
            if resize is not None:   # an aspect-kept resize pasted on a canvas of its rounded-up size
                return resize, ASPECT
        return None
    if isinstance(node, ast.List) and element is None and len(node.elts) == 1 \
            and not isinstance(node.elts[0], ast.Starred):    # ``[input_ids]``: one row of the ids, a batch axis
        return natural_source(resolver, node.elts[0], scope, depth + 1, frames, parameter=parameter)
    if isinstance(node, ast.Tuple) and element is not None:
        return natural_source(resolver, node.elts[element], scope, depth + 1, frames, parameter=parameter) \
            if 0 <= element < len(node.elts) else None
    if isinstance(node, ast.Subscript):
        if element is not None:
            return None
        if isinstance(node.value, ast.Call) and isinstance(node.slice, ast.Constant) \
                and isinstance(node.slice.value, int):   # ``torchaudio.load(f)[0]``
            return natural_source(resolver, node.value, scope, depth + 1, frames, node.slice.value,
                                  parameter=parameter)
        if _keeps_size(node.slice) or _truncates(node.slice):
            return natural_source(resolver, node.value, scope, depth + 1, frames, parameter=parameter)
        return None
    if isinstance(node, ast.Attribute):
        if element is None and node.attr in _KEEPING_ATTRIBUTES:
            return natural_source(resolver, node.value, scope, depth + 1, frames, parameter=parameter)
        return None
    if isinstance(node, ast.DictComp) and element is None and len(node.generators) == 1 \
            and isinstance(node.generators[0].iter, ast.Call) and isinstance(node.generators[0].iter.func, ast.Attribute) \
            and node.generators[0].iter.func.attr == "items":   # ``{k: v.to(device) for k, v in inputs.items()}``
        return natural_source(resolver, node.generators[0].iter.func.value, scope, depth + 1, frames,
                              parameter=parameter)
    if isinstance(node, ast.IfExp):   # ``self.encode(ctx) if i == 0 else [token]``: either arm may be the value
        return natural_source(resolver, node.body, scope, depth + 1, frames, element, parameter=parameter) \
            or natural_source(resolver, node.orelse, scope, depth + 1, frames, element, parameter=parameter)
    if isinstance(node, ast.BinOp) and element is None:
        return natural_source(resolver, node.left, scope, depth + 1, frames, parameter=parameter) \
            or natural_source(resolver, node.right, scope, depth + 1, frames, parameter=parameter)
    if isinstance(node, ast.Call):
        return _call_source(resolver, node, scope, depth, frames, element, parameter)
    return None


def _keeps_size(index: ast.AST) -> bool:
    """A subscript that keeps every axis's size: a string key, ``None``, an integer, ``...``, ``:`` or ``::-1``."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    for part in parts:
        if isinstance(part, ast.Slice):
            if part.lower is not None or part.upper is not None:
                return False
        elif not isinstance(part, ast.Constant) or not (part.value is None or part.value is Ellipsis
                                                        or isinstance(part.value, (str, int))):
            return False
    return True


def _truncates(index: ast.AST) -> bool:
    """``ids[-n:]`` / ``x[:, :max_len]``: one axis cut at one end only, to at most a bound (a truncation: shorter
    inputs keep their own size); the other parts keep theirs. A window with both ends (``x[a:a + n]``) or a step
    fixes nothing known and stops the size."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    cut = [p for p in parts if isinstance(p, ast.Slice) and (p.lower is not None or p.upper is not None)]
    if len(cut) != 1 or cut[0].step is not None or (cut[0].lower is None) == (cut[0].upper is None):
        return False
    return _keeps_size(ast.Tuple(elts=[p for p in parts if p is not cut[0]], ctx=ast.Load()))


def _call_source(resolver: "Resolver", node: ast.Call, scope: Optional[Scope], depth: int, frames: int,
                 element: Optional[int], parameter: Optional[tuple[ast.AST, str]]) -> Optional[tuple[ast.AST, str]]:
    name = resolver.qualname(node.func, scope) if scope is not None else resolver.qualname(node.func)
    row = sources().get(name) if name and parameter is None else None
    if row is not None:
        wanted = int(row["element"]) if row["element"] else None
        if wanted != element or any(kw.arg in row["window"].split() for kw in node.keywords if kw.arg):
            return None
        return node, f"{name}() decodes the whole {'recording' if row['element'] else 'image'}"
    if element is None and parameter is None and unpadded_tokens(node) and not _constant_text(resolver, node, scope) \
            and _text_evidence(resolver, node, scope):
        return node, "tokenized without padding to a fixed length"
    if element is None and parameter is None and _listed_tokens(resolver, node, scope) \
            and not _constant_text(resolver, node, scope):
        return node, _LISTED
    if element is None and parameter is None and _sized_back(resolver, node):
        return node, PROCESSOR
    if element is None and parameter is None and aspect_resize(resolver, node, scope):
        return node, ASPECT     # ``cv2.resize(img, None, fx=r, fy=r)``, ``r = 800 / min(img.shape[:2])``
    resized = own_size_resize(resolver, node, scope) if element is None else None
    if resized is not None:     # ``cv2.resize(img, (256 * ceil(w / 256), ...))``: a size of the input's own
        return natural_source(resolver, resized, scope, depth + 1, frames, parameter=parameter)
    if element is None and parameter is None and name in _LIST_TENSORS and node.args:
        found = natural_source(resolver, node.args[0], scope, depth + 1, frames)
        if found is not None and found[1] == _LISTED:
            return node, TOKEN_LIST     # the ids were a list: the tensor of their length is made here
        return found
    if element is not None:
        return _returned(resolver, node, scope, depth, frames, element) if parameter is None else None
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in KEEPING_METHODS:
        return natural_source(resolver, func.value, scope, depth + 1, frames, parameter=parameter)
    if name in KEEPING_FUNCTIONS and node.args:
        return natural_source(resolver, node.args[0], scope, depth + 1, frames, parameter=parameter)
    return _returned(resolver, node, scope, depth, frames, element) if parameter is None else None


_LISTED = "tokenized to a list of ids without padding to a fixed length"
PROCESSOR = ("an image processor whose outputs the module maps back to each image's own size (target_sizes=) "
              "resizes it keeping its aspect ratio (DETR-style: shortest edge 800, longest 1333)")


def _sized_back(resolver: "Resolver", node: ast.Call) -> bool:
    """``processor(images=image, return_tensors="pt")`` in a module that post-processes with ``target_sizes=``
    (``processor.post_process_object_detection(outputs, target_sizes=...)``): a detection / segmentation processor,
    which resizes each image keeping its aspect ratio rather than to one fixed size."""
    keywords = {kw.arg for kw in node.keywords if kw.arg is not None}
    if "return_tensors" not in keywords or not keywords & {"images", "image"}:
        return False
    source = resolver.source
    return source is not None and "target_sizes" in source and "post_process" in source


def _listed_tokens(resolver: "Resolver", node: ast.Call, scope: Optional[Scope]) -> bool:
    """``tok(prompt).input_ids`` / ``tok.encode(prompt)``: a text tokenized to Python lists of ids (no
    ``return_tensors=``), without padding, its ids read (``.input_ids``, ``["input_ids"]``, or ``encode``'s
    result)."""
    keywords = {kw.arg: kw.value for kw in node.keywords if kw.arg is not None}
    if "return_tensors" in keywords or any(k in _MEDIA_KEYWORDS for k in keywords) \
            or "pad_to_multiple_of" in keywords:
        return False
    padding = keywords.get("padding")
    if padding is not None and not (isinstance(padding, ast.Constant) and padding.value in _NO_PADDING):
        return False
    texts = node.args[:1] or [keywords[k] for k in ("text", "conversation", "prompt") if k in keywords][:1]
    if not texts or not any(isinstance(n, (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.BinOp, ast.JoinedStr))
                            for n in walk(texts[0])):
        return False
    func = node.func
    if not isinstance(func, (ast.Name, ast.Attribute)) or resolver.definition(func, scope) is not None:
        return False    # the file's own function: not a tokenizer
    callee = ast.unparse(func.value if isinstance(func, ast.Attribute) and func.attr == "encode" else func).lower()
    if not (callee.endswith("tokenizer") or callee.rsplit(".", 1)[-1] in ("tok", "tokenizer")):
        return False    # the callee is named a tokenizer (``tokenizer(...)``, ``self.tok.encode(...)``)
    if isinstance(func, ast.Attribute) and func.attr == "encode":
        return True
    return _token_fields_read(resolver, node, scope)


def unpadded_tokens(node: ast.Call) -> bool:
    """``tok(text, return_tensors="pt")``: a tokenizer call giving tensors, no padding to a fixed length, of a text
    that is not a constant, with no image / audio input."""
    if isinstance(node.func, ast.Attribute) and node.func.attr == "pad":
        return False    # ``tok.pad(features)`` pads to the longest by default (NPU405's question)
    keywords = {kw.arg: kw.value for kw in node.keywords if kw.arg is not None}
    tensors = keywords.get("return_tensors")
    if not isinstance(tensors, ast.Constant) or tensors.value not in ("pt", "np"):
        return False
    if any(k in _MEDIA_KEYWORDS for k in keywords) or "pad_to_multiple_of" in keywords:
        return False
    padding = keywords.get("padding")
    if padding is not None and not (isinstance(padding, ast.Constant) and padding.value in _NO_PADDING):
        return False
    texts = node.args[:1] or [keywords[k] for k in ("text", "conversation", "prompt") if k in keywords][:1]
    if not texts:
        return False
    return any(isinstance(n, (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.BinOp)) for n in walk(texts[0]))


def _text_evidence(resolver: "Resolver", node: ast.Call, scope: Optional[Scope]) -> bool:
    """The call tokenizes text, by the code's own evidence (an image processor takes ``return_tensors=`` too): a
    tokenizer's method (``tok.encode``, ``apply_chat_template``), a tokenizer's keyword (``truncation=``,
    ``max_length=``, ``add_special_tokens=``), a text given by keyword (``text=``) or evidently a string (an
    f-string, a string joined, formatted or concatenated with a literal, a parameter annotated ``str``,
    also through the names bound to one), its result read for token fields (``enc["input_ids"]``,
    ``enc.attention_mask``), or a receiver the module uses as a tokenizer (``self.tok.eos_token_id``)."""
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in _TOKENIZER_METHODS:
        return True
    keywords = {kw.arg: kw.value for kw in node.keywords if kw.arg is not None}
    if not node.args and "text" in keywords or any(k in _TOKENIZER_KEYWORDS for k in keywords):
        return True
    if node.args and _stringy(resolver, node.args[0], scope, 0):
        return True
    if _token_fields_read(resolver, node, scope):
        return True
    if isinstance(func, (ast.Name, ast.Attribute)) and resolver.scopes is not None:
        receiver = ast.unparse(func)
        tree = resolver.scopes.module.node
        return any(isinstance(n, ast.Attribute) and n.attr in _TOKENIZER_ATTRIBUTES
                   and ast.unparse(n.value) == receiver for n in walk(tree))
    return False


def _stringy(resolver: "Resolver", node: ast.AST, scope: Optional[Scope], depth: int) -> bool:
    if depth > 3:
        return False
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        return any(isinstance(side, ast.JoinedStr) or isinstance(side, ast.Constant) and isinstance(side.value, str)
                   or _stringy(resolver, side, scope, depth + 1) for side in (node.left, node.right))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("join", "format") \
            and isinstance(node.func.value, (ast.Constant, ast.JoinedStr)):
        return True
    if isinstance(node, ast.Name) and scope is not None and resolver.scopes is not None:
        for binding in resolver.scopes.may_reach(node.id, scope, (node.lineno, node.col_offset)):
            if binding.tag == PARAM and isinstance(binding.node, ast.arg) and binding.node.annotation is not None \
                    and ast.unparse(binding.node.annotation) in ("str", "typing.Optional[str]", "Optional[str]"):
                return True
            if binding.tag == VALUE and isinstance(binding.value, ast.AST) and not binding.path \
                    and _stringy(resolver, binding.value, binding.scope, depth + 1):
                return True
    return False


def _token_fields_read(resolver: "Resolver", node: ast.Call, scope: Optional[Scope]) -> bool:
    """The call's result (or the name it is bound to) is read for ``input_ids`` / ``attention_mask`` in its
    function."""
    function = scope.node if scope is not None else None
    if function is None:
        return False
    names: set[str] = set()
    for child in walk(function):
        if isinstance(child, ast.Assign) and _moved(child.value) is node:
            names |= {t.id for t in child.targets if isinstance(t, ast.Name)}
    for child in walk(function):
        base = field = None
        if isinstance(child, ast.Attribute):
            base, field = child.value, child.attr
        elif isinstance(child, ast.Subscript) and isinstance(child.slice, ast.Constant):
            base, field = child.value, child.slice.value
        if field in _TOKEN_FIELDS and (base is node or isinstance(base, ast.Name) and base.id in names):
            return True
    return False


def _moved(value: ast.AST) -> ast.AST:
    """``tok(text, return_tensors="pt").to(device)``: the call under moves and conversions that keep its fields."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in ("to", "cuda",
                                                                                                       "npu"):
        value = value.func.value
    return value


def _constant_text(resolver: "Resolver", node: ast.Call, scope: Optional[Scope]) -> bool:
    """The tokenized text is the same every call: a name or ``self.x`` every binding of which is a constant string
    (``input_text = "Hello my name is"`` in the class body), or a list of such texts repeated for the batch
    (``[SUFFIX] * len(texts)``: every row the same constant)."""
    keywords = {kw.arg: kw.value for kw in node.keywords if kw.arg is not None}
    texts = node.args[:1] or [keywords[k] for k in ("text", "conversation", "prompt") if k in keywords][:1]
    text = texts[0] if texts else None
    if isinstance(text, ast.BinOp) and isinstance(text.op, ast.Mult) and isinstance(text.left, ast.List) \
            and len(text.left.elts) == 1:
        text = text.left.elts[0]    # ``[SUFFIX] * len(texts)``
    if isinstance(text, ast.Constant) and isinstance(text.value, str):
        return True
    bindings = []
    if isinstance(text, ast.Name) and scope is not None and resolver.scopes is not None:
        bindings = resolver.scopes.may_reach(text.id, scope, (text.lineno, text.col_offset))
    elif isinstance(text, ast.Attribute) and isinstance(text.value, ast.Name) and scope is not None \
            and scope.self_name == text.value.id and scope.cls is not None:
        bindings = scope.cls.attrs.get(text.attr, []) + scope.cls.names.get(text.attr, [])
    return bool(bindings) and all(b.tag == VALUE and isinstance(b.value, ast.Constant)
                                  and isinstance(b.value.value, str) for b in bindings)


def _returned(resolver: "Resolver", node: ast.Call, scope: Optional[Scope], depth: int, frames: int,
              element: Optional[int]) -> Optional[tuple[ast.AST, str]]:
    """A call of the file's own function that returns such a value (its call is where the value enters the
    caller); another module's function that returns a reader's result (the project index)."""
    definition = resolver.definition(node.func, scope) if scope is not None else resolver.definition(node.func)
    if definition is None and scope is not None and isinstance(node.func, ast.Attribute) \
            and isinstance(node.func.value, ast.Name) and node.func.value.id == scope.self_name:
        definition = _own_method(scope, node.func.attr)    # ``self.transform(image)``: the class's own method
    if isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
        inner = resolver.scopes.scope_of(definition)
        if frames >= _FRAMES or inner is None:
            return None
        for ret in return_statements(definition):   # its own returns, kept on the node (not a walk per call)
            if ret.value is not None:
                found = natural_source(resolver, ret.value, inner, 0, frames + 1, element)
                if found is not None:
                    return node, f"{_callee(node)}() returns a value that {found[1].split(': ')[-1]}"
        return None
    name = resolver.qualname(node.func, scope) if scope is not None else resolver.qualname(node.func)
    project = resolver.project
    if element is None and name and "." in name and project is not None and definition is None:
        table = sources()
        chain = project.returned_leaf(name, resolver.module_name, lambda leaf: leaf in table
                                      and not table[leaf]["element"])
        if chain:
            return node, f"{_callee(node)}() returns what {chain[-1]}() decodes from the whole image"
        if project.aspect_resizing(name, resolver.module_name):
            return node, f"{_callee(node)}() {ASPECT}"
    if element is None and project is not None and isinstance(node.func, ast.Attribute):
        owner = resolver.value_of(node.func.value, scope) if scope is not None else None
        cls = owner[1] if owner is not None and len(owner) > 1 and isinstance(owner[1], str) else None
        target = project.index.resolve(cls) if cls is not None and (cls in project.index.classes or "." in cls) \
            else None
        if target is not None and project.method_aspect_resizing(target, node.func.attr):
            return node, f"{_callee(node)}() {ASPECT}"    # ``self.transform.apply_image(image)``
    return None


def _own_method(scope: Scope, name: str) -> Optional[ast.AST]:
    """The method ``name`` of the class whose method ``scope`` is (not its ``forward``: a model's run)."""
    current: Optional[Scope] = scope
    while current is not None and current.cls is None:
        current = current.parent
    if current is None or name in ("forward", "__init__"):
        return None
    method = next((b for b in current.cls.names.get(name, ()) if b.tag == DEF), None)
    return method.value if method is not None else None


def _callee(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else "call"
