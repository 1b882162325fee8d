"""Resizes that keep an input's aspect ratio (or its own size, rescaled): the target size is computed from the
resized value's own height and width -- a ratio to them (``k = 512 / min(h, w)``, ``scale = target / max(h,
w)``, ``int(w / scale)``), their minimum or maximum, or a helper given them (``get_preprocess_shape(img.shape[0],
img.shape[1], 1024)``). Every input of another aspect ratio comes out at another size: ResizeLongestSide,
"shortest side to 512", ``cv2.resize(img, None, fx=r, fy=r)`` with ``r`` from the image. A size only multiplied or
cut from the input's own (``x.shape[2] * 2``, ``h // 32 * 32``) is not such a resize (a model's upsampling).

Asked by :func:`npu_lint.analysis.natural_sizes.natural_source` (NPU419): such a resize gives its value the input's
own size, like a reader does. Unknown stays unknown: nothing is guessed from a variable's name."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional

from npu_lint.analysis.nodes import walk
from npu_lint.analysis.scopes import AUGMENT, VALUE, Scope

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

ASPECT = "resizes it to a size computed from its own height and width (its aspect ratio kept)"
# Resizing functions: the resized value is the first argument, the size the others (or the keywords below).
RESIZES = frozenset({
    "cv2.resize", "torch.nn.functional.interpolate", "torch.nn.functional.upsample",
    "torchvision.transforms.functional.resize", "torchvision.transforms.v2.functional.resize",
    "albumentations.resize", "albumentations.augmentations.geometric.functional.resize",
    "albumentations.augmentations.functional.resize", "skimage.transform.resize", "skimage.transform.rescale",
    "kornia.geometry.transform.resize", "kornia.geometry.resize", "scipy.ndimage.zoom", "PIL.ImageOps.contain",
    "PIL.ImageOps.fit", "PIL.ImageOps.scale"})
_SIZE_KEYWORDS = frozenset({"size", "dsize", "fx", "fy", "scale_factor", "output_shape", "height", "width", "scale",
                            "zoom", "new_size", "target_size", "shape"})
_SHAPE_ATTRIBUTES = frozenset({"shape", "size", "width", "height", "w", "h"})
# Calls that only convert a number (their result is derived from the input, not a new size computation).
_CONVERSIONS = frozenset({"int", "float", "round", "tuple", "list", "abs", "numpy.round", "numpy.int32", "numpy.int64",
                          "numpy.floor", "numpy.ceil", "math.floor", "math.ceil", "numpy.array", "numpy.asarray",
                          "len", "str", "print"})
_EXTREMES = frozenset({"min", "max", "numpy.min", "numpy.max", "numpy.amin", "numpy.amax", "numpy.minimum",
                       "numpy.maximum", "torch.min", "torch.max", "math.sqrt", "numpy.sqrt"})
_BUDGET = 40
# The last names of the resizes above (a cheap test before the qualified name is asked).
_RESIZE_NAMES = frozenset({"resize", "interpolate", "upsample", "rescale", "zoom", "contain", "fit", "scale"})
_DRAWS = ("random.", "numpy.random.", "torch.rand", "torch.randint", "torch.randn")


def aspect_resize(resolver: "Resolver", call: ast.Call, scope: Optional[Scope]) -> bool:
    """``call`` resizes a value to a size computed from that value's own height and width (a ratio to them, their
    extreme or a helper's size given them), not merely a multiple or a cut of them."""
    parts = _parts(resolver, call, scope)
    if parts is None or scope is None:
        return False
    search = _Search(resolver, parts[2], (call.lineno, call.col_offset))
    return any(search.scaled(size, scope, 0) for size in parts[1]) \
        and not any(search.draws(size, scope, 0) for size in parts[1])


def own_size_resize(resolver: "Resolver", call: ast.Call, scope: Optional[Scope]) -> Optional[ast.AST]:
    """The value ``call`` resizes when the size is computed from that value's own height and width in any way
    (``(256 * ceil(w / 256), ...)``: rounded up): what comes out has a size of the input's own, as the input."""
    parts = _parts(resolver, call, scope)
    if parts is None or scope is None:
        return None
    search = _Search(resolver, parts[2], (call.lineno, call.col_offset))
    if not any(search.derived(size, scope, 0) for size in parts[1]) \
            or any(search.draws(size, scope, 0) for size in parts[1]):
        return None
    return parts[0]


def _parts(resolver: "Resolver", call: ast.Call,
           scope: Optional[Scope]) -> Optional[tuple[ast.AST, list[ast.AST], set[str]]]:
    """(the resized value, the size arguments, the names the value is made of) of a resize call."""
    func = call.func
    if scope is None or resolver.scopes is None \
            or (func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else "") \
            not in _RESIZE_NAMES:
        return None
    name = resolver.qualname(func, scope)
    if name in RESIZES:
        if not call.args:
            return None
        resized, sizes = call.args[0], list(call.args[1:])
    elif isinstance(func, ast.Attribute) and func.attr == "resize" and (call.args or call.keywords) \
            and name not in ("numpy.resize",) and not (name or "").startswith("torch."):
        resized, sizes = func.value, list(call.args)   # ``img.resize((w, h))`` (PIL)
    else:
        return None
    sizes += [kw.value for kw in call.keywords if kw.arg in _SIZE_KEYWORDS]
    roots = _roots(resized)
    return (resized, sizes, roots) if roots and sizes else None


def _roots(node: ast.AST) -> set[str]:
    """The names (and ``self.x`` attributes) the resized value is made of: ``to_pil_image(image)`` -> image."""
    found = set()
    for child in walk(node):
        if isinstance(child, ast.Name):
            found.add(child.id)
        elif isinstance(child, ast.Attribute) and isinstance(child.value, ast.Name) and child.value.id == "self":
            found.add(f"self.{child.attr}")
    found.discard("self")
    return found


class _Search:
    """Walks a size expression and the values of the names in it (their bindings reaching the resize)."""

    def __init__(self, resolver: "Resolver", roots: set[str], position: tuple[int, int]) -> None:
        self.resolver, self.roots, self.position = resolver, roots, position
        self.budget = _BUDGET
        self.derived_memo: dict[int, bool] = {}
        self.seen: set[tuple[str, int]] = set()

    def _values(self, name: ast.Name, scope: Scope, mode: str) -> list[tuple[ast.AST, Scope]]:
        self.budget -= 1
        if self.budget < 0 or self.resolver.scopes is None:
            return []
        out = []
        for binding in self.resolver.scopes.may_reach(name.id, scope, (name.lineno, name.col_offset)):
            if binding.tag in (VALUE, AUGMENT) and isinstance(binding.value, ast.AST) \
                    and (mode, id(binding.value)) not in self.seen:
                self.seen.add((mode, id(binding.value)))
                out.append((binding.value, binding.scope))
        return out

    def derived(self, node: ast.AST, scope: Scope, depth: int) -> bool:
        """``node`` is computed from a shape read of the resized value (``img.shape[0]``, ``img.size``)."""
        if depth > 6:
            return False
        for child in walk(node):
            if isinstance(child, ast.Attribute) and child.attr in _SHAPE_ATTRIBUTES and self._of_root(child.value):
                return True
            if isinstance(child, ast.Name) and child.id not in self.roots:
                for value, inner in self._values(child, scope, "derived"):
                    if self.derived(value, inner, depth + 1):
                        return True
        return False

    def _of_root(self, node: ast.AST) -> bool:
        while isinstance(node, (ast.Subscript, ast.Call)):   # ``frames[0].shape``, ``img.copy().shape``
            node = node.value if isinstance(node, ast.Subscript) else node.func
            if isinstance(node, ast.Attribute) and not (isinstance(node.value, ast.Name) and node.value.id == "self"):
                node = node.value
        if isinstance(node, ast.Name):
            return node.id in self.roots
        return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self" \
            and f"self.{node.attr}" in self.roots

    def scaled(self, node: ast.AST, scope: Scope, depth: int) -> bool:
        """``node`` computes a new size from the resized value's shape: a division by a value derived from it, an
        extreme of derived values, or a helper given one."""
        if depth > 6:
            return False
        for child in walk(node):
            if isinstance(child, ast.BinOp) and isinstance(child.op, (ast.Div, ast.FloorDiv)) \
                    and not isinstance(child.right, ast.Constant) and self.derived(child.right, scope, depth + 1):
                return True
            if isinstance(child, ast.Call):
                callee = self.resolver.qualname(child.func, scope) \
                    or (child.func.id if isinstance(child.func, ast.Name) else None)

                arguments = [*child.args, *(kw.value for kw in child.keywords)]
                if callee in _CONVERSIONS or not arguments or not (callee in _EXTREMES or self._helper(child, scope)):
                    continue
                if not _shape_method(child) and any(self.derived(a, scope, depth + 1) for a in arguments):
                    return True   # ``min(h, w)``, ``np.max(img.shape[:2])``, ``get_preprocess_shape(h, w, 1024)``
            if isinstance(child, ast.Name) and child.id not in self.roots:
                for value, inner in self._values(child, scope, "scaled"):
                    if self.scaled(value, inner, depth + 1):
                        return True
        return False


    def image_size(self, node: ast.AST, scope: Scope, depth: int) -> Optional[ast.AST]:
        """The host image size read (``img.shape[:2]``, ``img.size[::-1]``, of another value) ``node`` holds."""
        if depth > 4:
            return None
        if _image_size_read(node) and not self._of_root(node.value.value):   # type: ignore[attr-defined]
            return node
        if isinstance(node, ast.Name) and node.id not in self.roots:
            for value, inner in self._values(node, scope, "image"):
                found = self.image_size(value, inner, depth + 1)
                if found is not None:
                    return found
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("tuple", "list") \
                and node.args:
            return self.image_size(node.args[0], scope, depth + 1)
        return None

    def _helper(self, call: ast.Call, scope: Scope) -> bool:
        """A size helper of the project: the file's function or a method called on ``self`` or on a class
        (``self.get_preprocess_shape(h, w, n)``), not a library call (``zip``, ``np.stack``)."""
        func = call.func
        if isinstance(func, ast.Name):
            return isinstance(self.resolver.definition(func, scope), (ast.FunctionDef, ast.AsyncFunctionDef))
        return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
            and (func.value.id in ("self", "cls") or isinstance(self.resolver.definition(func.value, scope), ast.ClassDef))

    def draws(self, node: ast.AST, scope: Scope, depth: int) -> bool:
        """A random draw feeds ``node`` (``sz = random.randrange(...)``): NPU404's random size, not the input's."""
        if depth > 6:
            return False
        for child in walk(node):
            if isinstance(child, ast.Call) and (self.resolver.qualname(child.func, scope) or "").startswith(_DRAWS):
                return True
            if isinstance(child, ast.Name) and child.id not in self.roots:
                if any(self.draws(value, inner, depth + 1) for value, inner in self._values(child, scope, "draws")):
                    return True
        return False


def _shape_method(call: ast.Call) -> bool:
    """``img.shape.index(...)``, ``x.size(2)``: a read of the shape itself, not a size computed from it."""
    func = call.func
    return isinstance(func, ast.Attribute) and (func.attr in _SHAPE_ATTRIBUTES or isinstance(func.value, ast.Attribute)
                                                and func.value.attr in _SHAPE_ATTRIBUTES)


_WORDS = ("resize", "interpolate", "rescale", "upsample", "zoom", "ImageOps")


def returns_aspect_resize(resolver: "Resolver", function: ast.AST) -> bool:
    """Some return of ``function`` gives a value it resized keeping its aspect ratio (:func:`aspect_resize`, through
    the names and conversions NPU419 follows): ``def resize_image(img, res): ... return cv2.resize(img, (W, H))``.
    Asked only of functions whose text names a resize (most do not)."""
    if resolver.scopes is None or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    lines = _lines(resolver)
    text = "\n".join(lines[function.lineno - 1:getattr(function, "end_lineno", function.lineno)])
    if lines and not any(word in text for word in _WORDS):
        return False
    from npu_lint.analysis.natural_sizes import natural_source
    from npu_lint.analysis.summaries import return_statements
    inner = resolver.scopes.scope_of(function)
    if inner is None:
        return False
    for ret in return_statements(function):
        if ret.value is None:
            continue
        value = ret.value.elts[0] if isinstance(ret.value, ast.Tuple) and ret.value.elts else ret.value
        found = natural_source(resolver, value, inner)
        if found is not None and ASPECT in found[1]:
            return True
    return False


_CANVASES = frozenset({"zeros", "ones", "full", "empty"})


def canvas_of_resize(resolver: "Resolver", name: ast.Name, scope: Optional[Scope],
                     depth: int = 0) -> Optional[ast.AST]:
    """``resized = np.zeros((h32, w32, c))`` then ``resized[:h, :w] = proc`` with ``proc`` resized keeping its aspect
    ratio, the canvas sized by names its function computes (the resized size rounded up to a stride: CRAFT's
    ``resize_aspect_ratio``): the canvas has the input's own size too; the resize is returned. A canvas of a size
    given to the function (a letterbox to ``(size, size)``) or of constants is fixed (session 21). ``depth``: how deep
    ``natural_source`` already is; the pasted value is asked one level deeper, so the two never recurse unbounded."""
    function = scope.node if scope is not None else None
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    made = resolver.bound_value(name, scope)
    if not (isinstance(made, ast.Call) and isinstance(made.func, ast.Attribute) and made.func.attr in _CANVASES
            and made.args):
        return None
    params = {a.arg for a in function.args.args + function.args.kwonlyargs}
    local = [n for n in walk(made.args[0]) if isinstance(n, ast.Name) and n.id not in params]
    if not local or not all(_assigned_in(function, n.id) for n in local):
        return None
    from npu_lint.analysis.natural_sizes import natural_source
    for node in walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript) \
                and isinstance(node.targets[0].value, ast.Name) and node.targets[0].value.id == name.id \
                and isinstance(node.value, ast.Name):
            found = natural_source(resolver, node.value, scope, depth + 1)
            if found is not None and ASPECT in found[1]:
                return found[0]
    return None


def _assigned_in(function: ast.AST, name: str) -> bool:
    """``name`` is assigned in ``function`` (``h32 = h`` then ``h32 = h + ...`` under a test)."""
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in walk(function))


def _lines(resolver: "Resolver") -> list[str]:
    """The module's lines, split once per file."""
    kept = getattr(resolver, "_npu_aspect_lines", None)
    if kept is None or kept[0] is not resolver.source:
        kept = (resolver.source, (resolver.source or "").splitlines())
        resolver._npu_aspect_lines = kept   # type: ignore[attr-defined]
    return kept[1]


ORIGINAL = "brings it back to an input image's own height and width"
# Torch resizes (device compute when their input is a device tensor).
_TORCH_RESIZES = frozenset({"torch.nn.functional.interpolate", "torch.nn.functional.upsample",
                            "torchvision.transforms.functional.resize", "torchvision.transforms.v2.functional.resize",
                            "kornia.geometry.transform.resize", "kornia.geometry.resize"})


def original_size_resize(resolver: "Resolver", call: ast.Call, scope: Optional[Scope]) -> Optional[ast.AST]:
    """``F.interpolate(pred, size)`` of a device tensor to the size of an input image as the host holds it: a numpy
    image's ``img.shape[:2]`` (height, width of an HWC array) or a PIL image's ``img.size[::-1]``, of another value
    than the resized one (``pred = F.interpolate(pred, image.shape[:2])``): the output takes every input's own size.
    Returns the size read; None otherwise. A tensor's ``x.shape[-2:]`` (a model's upsampling to its input) is not
    such a read."""
    if scope is None or resolver.scopes is None or resolver.qualname(call.func, scope) not in _TORCH_RESIZES:
        return None
    if not call.args or resolver.is_host(call.args[0]):
        return None
    sizes = list(call.args[1:2]) + [kw.value for kw in call.keywords if kw.arg == "size"]
    if not sizes:
        return None
    search = _Search(resolver, _roots(call.args[0]), (call.lineno, call.col_offset))
    for size in sizes:
        found = search.image_size(size, scope, 0)
        if found is not None:
            return found
    return None


def _image_size_read(node: ast.AST) -> bool:
    """``img.shape[:2]`` / ``img.shape[0:2]`` (an HWC array's height and width) or ``img.size[::-1]`` (a PIL image's
    (width, height) reversed)."""
    if not isinstance(node, ast.Subscript) or not isinstance(node.value, ast.Attribute) \
            or not isinstance(node.slice, ast.Slice):
        return False
    part, attr = node.slice, node.value.attr
    if attr == "shape":
        return part.step is None and (part.lower is None or isinstance(part.lower, ast.Constant)
                                      and part.lower.value == 0) \
            and isinstance(part.upper, ast.Constant) and part.upper.value == 2
    return attr == "size" and part.lower is None and part.upper is None and isinstance(part.step, ast.UnaryOp) \
        and isinstance(part.step.op, ast.USub) and isinstance(part.step.operand, ast.Constant) \
        and part.step.operand.value == 1


THUMBNAIL = "shrinks it in place keeping its aspect ratio (PIL's thumbnail)"


def thumbnail_before(resolver: "Resolver", name: ast.Name, scope: Optional[Scope]) -> Optional[ast.Call]:
    """``img.thumbnail(size)`` on the same name earlier in ``name``'s function: PIL shrinks the image in place to fit
    ``size`` keeping its aspect ratio, so what the name holds then has a size of the image's own. Asked only in
    files that call ``.thumbnail(``."""
    if resolver.thumbnails is None:   # the text searched once per file, not once per question
        resolver.thumbnails = {} if resolver.source is not None and ".thumbnail(" in resolver.source else False
    if resolver.thumbnails is False or scope is None or scope.node is None:
        return None
    calls = resolver.thumbnails.get(id(scope.node))
    if calls is None:   # the scope's ``name.thumbnail(...)`` statements by name, in walk order: one walk per scope
        calls = resolver.thumbnails[id(scope.node)] = {}
        for statement in walk(scope.node):
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) \
                    and isinstance(statement.value.func, ast.Attribute) and statement.value.func.attr == "thumbnail" \
                    and isinstance(statement.value.func.value, ast.Name):
                calls.setdefault(statement.value.func.value.id, []).append(statement)
    found = None
    for statement in calls.get(name.id, ()):
        if statement.lineno < name.lineno:
            found = statement.value
    return found

