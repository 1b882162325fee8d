"""Value kinds: a small lattice of what a value is, as far as the code shows it (this is not a type checker).

A value is a ``(kind, cls)`` pair: ``kind`` one of the names below, ``cls`` the qualified class of an
instance where it is known (``torch.optim.Adam``, ``torch.nn.Linear``, ``torch.nn.Module`` for a project
class deriving from it). ``None`` is unknown, and unknown stays unknown: nothing here reads a variable's name.
"""
from __future__ import annotations

from typing import Optional

from npu_lint.analysis.library_classes import library_base

TENSOR, BATCH, MASK = "tensor", "batch", "mask"      # batch: a tensor taken from a data loader
HOST = "host"                                         # numpy / pandas arrays, tensors moved to the CPU
LIST = "list"                                         # a Python list: its elements are of unknown kind
MODULE, OPTIMIZER, SCHEDULER, SCALER = "module", "optimizer", "scheduler", "scaler"
LOADER, DATASET, SAMPLER = "loader", "dataset", "sampler"
DEVICE, DTYPE = "device", "dtype"
AUTOGRAD = "autograd"   # a subclass of torch.autograd.Function (used through the class: ``MyFn.apply(x)``)
CTX = "ctx"             # the ``ctx`` of an autograd Function's static ``forward`` / ``backward``
DISTRIBUTION = "distribution"   # a torch.distributions instance (``Normal(mu, sigma).sample()``)
INSTANCE = "instance"   # an instance of another torch class (``torch.Generator``, ``torch.profiler.profile``)
# No torch object: an instance of a project class no torch kind fits (a NamedTuple of tensors, a trainer: its class
# names it, for its own methods and attributes), of another library's class, or a Python value an ``isinstance``
# test shows (``isinstance(x, dict)``: str, dict, int ...; no class).
OBJECT = "object"
FUNCTION_CTX = "torch.autograd.function.FunctionCtx"
STR: "Value" = (OBJECT, "builtins.str")   # a Python string: a literal, an f-string, ``"".join(...)``, ``str(x)``
# str methods that return a str (on a receiver the model knows is a str).
STR_METHODS = frozenset({"join", "format", "strip", "lstrip", "rstrip", "lower", "upper", "replace", "title",
                         "capitalize", "zfill", "ljust", "rjust", "center", "casefold", "removeprefix", "removesuffix"})
TENSORS = (TENSOR, BATCH, MASK)
PYTHON_NUMBER = "builtins.int"   # the class of a host value that is a Python number (``x.size(0)``, ``len(x)``)
CPU_TENSOR = "torch.Tensor"   # the class of a host value that is a tensor moved with ``.cpu()``
# The class of what a Hugging Face tokenizer or processor returns with ``return_tensors="pt"`` (a ``BatchEncoding``,
# ``BatchFeature``): a mapping of tensors it made on the CPU; its fields are host tensors until moved.
HOST_ENCODING = "transformers.BatchEncoding"

Value = tuple[str, Optional[str]]

# torch functions that return something other than a tensor.
NOT_TENSOR = frozenset({
    "device", "dtype", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "manual_seed",
    "seed", "initial_seed", "load", "save", "compile", "is_tensor", "is_storage", "numel", "get_default_dtype",
    "set_default_dtype", "set_default_device", "set_printoptions", "use_deterministic_algorithms",
    "are_deterministic_algorithms_enabled", "autocast", "Generator", "finfo", "iinfo", "is_floating_point",
    "is_complex", "is_nonzero", "Size", "get_num_threads", "set_num_threads", "is_grad_enabled",
    "get_rng_state", "set_rng_state", "typename", "equal", "allclose", "is_same_size", "result_type",
    "can_cast", "promote_types", "broadcast_shapes", "set_float32_matmul_precision", "vmap", "cond",
})
TENSOR_MODULES = ("torch.nn.functional.", "torch.linalg.", "torch.fft.", "torch.special.")
# torchvision's box and region operators (``torchvision.ops.box_iou(a, b)``, also under ``torchvision.ops.boxes``):
# functions of tensors that return a tensor (its module classes, ``RoIAlign``, ``MLP``, are left out).
TORCHVISION_TENSOR_OPS = frozenset(
    f"torchvision.ops.{module}{name}" for module in ("", "boxes.")
    for name in ("box_iou", "generalized_box_iou", "distance_box_iou", "complete_box_iou", "box_area",
                 "box_convert", "clip_boxes_to_image", "remove_small_boxes", "masks_to_boxes", "roi_align",
                 "roi_pool", "ps_roi_align", "ps_roi_pool"))
# Tensor methods whose result is not a tensor.
NOT_TENSOR_METHODS = frozenset({
    "item", "tolist", "size", "dim", "ndimension", "numel", "nelement", "numpy", "data_ptr", "element_size",
    "is_contiguous", "is_floating_point", "is_complex", "get_device", "stride", "storage_offset", "type",
    "untyped_storage", "storage", "__len__", "backward", "register_hook", "equal", "allclose",
    "chunk", "split", "unbind", "tensor_split", "unique_consecutive", "sort", "topk", "max", "min", "kthvalue",
    "mode", "median", "nanmedian", "cummax", "cummin", "sum_to_size", "apply_", "map_", "all", "any",
})
# Functions and methods that return a tuple of tensors: unpacking them binds tensors.
TENSOR_TUPLES = frozenset({"chunk", "split", "unbind", "tensor_split", "sort", "topk", "max", "min", "kthvalue",
                           "mode", "median", "nanmedian", "cummax", "cummin", "meshgrid", "broadcast_tensors",
                           "unique", "where", "aminmax", "std_mean", "var_mean", "frexp", "lstsq", "slogdet",
                           "qr", "svd", "eig", "eigh", "split_with_sizes", "hsplit", "vsplit", "dsplit",
                           "unique_consecutive"})
# ``u, counts = x.unique(return_counts=True)``: only torch's ``unique`` methods take these keywords (numpy's is a
# function, pandas' takes none), so the pieces are tensors whatever the receiver.
TENSOR_TUPLE_KEYWORDS = frozenset({"return_counts", "return_inverse"})
# Methods of a batched graph that give a tensor of per-graph counts whatever the receiver is known to be (DGL's
# ``g.batch_num_nodes()`` / ``g.batch_num_edges()``: no tensor, numpy or Python type has them).
GRAPH_COUNT_METHODS = frozenset({"batch_num_nodes", "batch_num_edges"})
# Methods that keep a mask a mask (shape or placement only).
MASK_KEEPING = frozenset({
    "clone", "to", "view", "reshape", "expand", "expand_as", "unsqueeze", "squeeze", "flatten", "permute",
    "transpose", "contiguous", "detach", "npu", "cuda", "repeat", "view_as", "reshape_as", "t", "flip",
    "logical_and", "logical_or", "logical_not", "logical_xor", "bool", "__invert__", "bitwise_not",
    "bitwise_and", "bitwise_or", "triu", "tril", "roll",
    "gather", "index_select", "narrow", "take_along_dim", "select", "movedim", "unflatten", "swapaxes",
    "repeat_interleave",
})
# torch dtypes of numbers: a mask cast to one of them (``.to(torch.int32)``) is no longer a mask (``uint8`` still
# indexes as one).
NUMERIC_DTYPES = frozenset({"float64", "double", "float32", "float", "float16", "half", "bfloat16", "int64", "long",
                            "int32", "int", "int16", "short", "int8", "complex64", "cfloat", "complex128", "cdouble"})
# Methods and functions that produce a mask.
MASK_METHODS = frozenset({
    "bool", "eq", "ne", "gt", "ge", "lt", "le", "isnan", "isinf", "isfinite", "isneginf", "isposinf",
    "logical_and", "logical_or", "logical_not", "logical_xor", "isclose", "signbit", "__eq__", "__ne__",
    "greater", "less", "greater_equal", "less_equal", "not_equal",
})
# Comparison methods: on a receiver of unknown kind they give a mask as the operators do, unless the file
# imports pandas (a Series has them too); numpy arrays have none of them.
# Kinds whose values are instances of a class the model may know (``(kind, class)``): their methods are the class's.
CLASSED = (OBJECT, MODULE, OPTIMIZER, DATASET, LOADER, SCHEDULER, SAMPLER)
COMPARISON_METHODS = frozenset({"eq", "ne", "gt", "ge", "lt", "le"})
# Mask methods of torch tensors that neither numpy arrays nor pandas frames have (``i[i.less(t)]``): a mask on a
# receiver of unknown kind, pandas or not.
TORCH_ONLY_MASK_METHODS = frozenset({"greater", "less", "greater_equal", "less_equal", "not_equal", "isnan",
                                     "isinf", "isfinite", "isneginf", "isposinf", "logical_and", "logical_or",
                                     "logical_not", "logical_xor", "signbit"})
# Arithmetic methods torch tensors share with pandas' frames but not with numpy arrays or Python's numbers
# (``np.abs(a)``, ``abs(x)``, ``math.sqrt(x)`` are functions there): ``norm(err / tol).abs()`` is a tensor in a file
# without pandas.
FRAME_SHARED_METHODS = frozenset({"abs", "pow", "sqrt", "exp"})
MASK_FUNCTIONS = frozenset("torch." + name for name in MASK_METHODS | {"isreal", "is_nonzero", "any", "all", "isin"}
                           - {"bool"})
# Methods only pandas' frames, series and indexes have (``torch.isin`` and ``np.isin`` are functions): host data.
PANDAS_ONLY_METHODS = frozenset({"isin"})
LIKE_FUNCTIONS = frozenset({"torch.zeros_like", "torch.ones_like", "torch.empty_like", "torch.full_like",
                            "torch.clone", "torch.flip", "torch.roll", "torch.triu", "torch.tril"})
# Methods of nn.Module that return the module itself.
MODULE_KEEPING = frozenset({"to", "cuda", "npu", "cpu", "train", "eval", "half", "float", "double", "bfloat16",
                            "requires_grad_", "type", "to_empty", "share_memory", "apply", "zero_grad"})
DISTRIBUTION_TENSORS = frozenset({"sample", "rsample", "log_prob", "entropy", "cdf", "icdf", "sample_n",
                                  "perplexity", "enumerate_support"})
# Packages whose classes' instances are INSTANCE values (CUDA classes are NPU2xx's; ``torch.nn`` is modules).
INSTANCE_PACKAGES = ("torch.profiler.", "torch.utils.tensorboard.", "torch.utils.checkpoint.",
                     "torch.autograd.profiler.", "torch.distributed.", "torch.fx.", "torch.jit.", "torch.export.",
                     "torch.utils.hooks.")
WRAPPER_MODULES = frozenset({"torch.distributed.fsdp.FullyShardedDataParallel",
                             "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel"})
LOWERCASE_CLASSES = frozenset({"torch.profiler.profile", "torch.autograd.profiler.profile",
                               "torch.profiler.record_function",
                               "torch.autograd.profiler.record_function"})
NOT_INSTANCES = frozenset({"torch.Tensor", "torch.Size", "torch.dtype", "torch.device", "torch.Storage", "torch.SymInt",
                           "torch.SymFloat", "torch.SymBool", "torch.TypedStorage", "torch.UntypedStorage"})
TENSOR_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "data", "grad", "real", "imag"})
TENSOR_ANNOTATIONS = frozenset({"torch.Tensor", "torch.nn.Parameter", "torch.nn.parameter.Parameter",
                                "torch.FloatTensor", "torch.LongTensor", "torch.HalfTensor", "torch.IntTensor",
                                "torch.DoubleTensor"})
MASK_ANNOTATIONS = frozenset({"torch.BoolTensor", "torch.ByteTensor"})
SCALERS = frozenset({"torch.cuda.amp.GradScaler", "torch.amp.GradScaler", "torch.npu.amp.GradScaler",
                     "torch_npu.npu.amp.GradScaler", "torch.cpu.amp.GradScaler", "torch_xla.amp.GradScaler",
                     "torch.distributed.fsdp.ShardedGradScaler",
                     "torch.distributed.fsdp.sharded_grad_scaler.ShardedGradScaler"})
# GradScaler subclasses of other devices' torch backends (``torch.mlu.amp.GradScaler``, ``torch.xpu.amp.GradScaler``)
SCALER_SUFFIX = ".amp.GradScaler"
# Torch base classes a project class can derive from, and the kind its instances have.
BASE_KINDS = {"torch.nn.Module": MODULE, "torch.optim.Optimizer": OPTIMIZER, "torch.utils.data.Dataset": DATASET,
              "torch.utils.data.IterableDataset": DATASET, "torch.utils.data.Sampler": SAMPLER,
              "torch.utils.data.DataLoader": LOADER, "torch.optim.lr_scheduler.LRScheduler": SCHEDULER,
              "torch.optim.lr_scheduler._LRScheduler": SCHEDULER, "torch.autograd.Function": AUTOGRAD}

AUTOGRAD_BASES = {"torch.autograd.function.Function": "torch.autograd.Function"}   # where torch defines it


def join(values: list[Optional[Value]]) -> Optional[Value]:
    """The kind several bindings agree on (mask and tensor join to tensor); None if they disagree."""
    if len(values) == 1:   # the common case: one binding reaches
        return values[0]
    known = [value for value in values if value is not None]
    if not known or len(known) != len(values):
        return None
    kinds = {kind for kind, _ in known}
    classes = {cls for _, cls in known}
    cls = classes.pop() if len(classes) == 1 else None
    if len(kinds) == 1:
        return known[0][0], cls
    if kinds <= set(TENSORS):
        return TENSOR, None
    return None


def refine(declared: Optional[Value], inferred: Optional[Value]) -> Optional[Value]:
    """What an annotation declares, or what the code shows when it agrees and may be more precise (a mask for
    ``-> Tensor``, ``nn.Linear`` for ``-> nn.Module``, ``SGD`` for ``optimizer: Optimizer = SGD(...)``)."""
    if declared is None or (inferred is not None and (inferred[0] == declared[0]
                                                      or (inferred[0] in TENSORS and declared[0] in TENSORS))):
        if declared is not None and inferred is not None and inferred[0] == declared[0] and (
                inferred[1] is None or inferred[1] in BASE_KINDS):
            return declared   # the code agrees on the kind but names no class (a join of subclasses'), or only torch's
            # base class (``model = strategy.model`` typed ``nn.Module`` under ``-> PackNetModule``): the declared one
        return inferred if inferred is not None else declared
    return declared


def of_class(qualname: str) -> Optional[Value]:
    """The value an instance of a torch (or numpy/pandas) class has, from the class's qualified name."""
    if qualname in SCALERS or (qualname.startswith("torch.") and qualname.endswith(SCALER_SUFFIX)
                               and qualname.count(".") == 3):
        return SCALER, qualname
    qualname = AUTOGRAD_BASES.get(qualname, qualname)
    if qualname in BASE_KINDS:
        return BASE_KINDS[qualname], qualname
    base = library_base(qualname)
    if base is not None:   # another library's subclass of a torch class (``torch_geometric.loader.DataLoader``)
        return BASE_KINDS[base], qualname
    head, _, last = qualname.rpartition(".")
    if qualname in LOWERCASE_CLASSES:
        return INSTANCE, qualname
    if not last[:1].isupper():
        return None
    if qualname in ("torch.nn.Parameter", "torch.nn.parameter.Parameter") or qualname in TENSOR_ANNOTATIONS:
        return TENSOR, None
    if qualname in MASK_ANNOTATIONS:
        return MASK, None
    if head.startswith("torch.optim.lr_scheduler"):
        return SCHEDULER, qualname
    if head in ("torch.optim", "torch_npu.optim", "torch.distributed.optim") or head.startswith("apex.optimizers"):
        return OPTIMIZER, qualname
    if head in ("torch.nn", "torch.nn.modules", "torch.nn.parallel") or qualname in WRAPPER_MODULES \
            or head.startswith(("torch.nn.modules.", "torch_npu.contrib.module")):
        return MODULE, qualname
    if head == "torch.utils.data":
        if last.endswith("Sampler"):
            return SAMPLER, qualname
        if last.endswith("Dataset") or last in ("Subset",):
            return DATASET, qualname
    if head.split(".", 1)[0] in ("numpy", "pandas"):
        return HOST, None
    if head == "torch.distributions" or head.startswith("torch.distributions."):
        return DISTRIBUTION, qualname
    if (head == "torch" or (head + ".").startswith(INSTANCE_PACKAGES)) and qualname not in NOT_INSTANCES:
        return INSTANCE, qualname   # ``torch.Generator()``: its methods are named where the tables list them
    return None


# torch functions that return a Python number, bool or string (process and device counts, backend flags).
PYTHON_RESULTS = {
    "torch.distributed.get_world_size": "int", "torch.distributed.get_rank": "int",
    "torch.distributed.get_node_local_rank": "int", "torch.distributed.get_global_rank": "int",
    "torch.distributed.get_group_rank": "int", "torch.distributed.is_initialized": "bool",
    "torch.distributed.is_available": "bool", "torch.distributed.is_nccl_available": "bool",
    "torch.distributed.is_torchelastic_launched": "bool", "torch.distributed.get_backend": "str",
    "torch.cuda.device_count": "int", "torch.cuda.current_device": "int", "torch.cuda.is_available": "bool",
    "torch.cuda.is_bf16_supported": "bool", "torch.npu.device_count": "int", "torch.npu.current_device": "int",
    "torch.npu.is_available": "bool", "torch_npu.npu.device_count": "int", "torch_npu.npu.is_available": "bool",
    "torch.get_num_threads": "int", "torch.get_num_interop_threads": "int", "torch.initial_seed": "int",
    "torch.seed": "int", "torch.is_grad_enabled": "bool", "torch.is_tensor": "bool", "torch.numel": "int",
}


# Readers that return a tensor on the host (CPU) whatever the default device: a file decoded, an array wrapped
# (``wav, sr = torchaudio.load(p)``, ``torch.from_numpy(a)``). The value stays host until moved (``.to(device)``,
# ``.cuda()``, ``.npu()``) or handed to a module.
HOST_TENSOR_SOURCES = frozenset({
    "torch.from_numpy", "torchaudio.load", "torchaudio.load_with_torchcodec", "torchvision.io.read_image",
    "torchvision.io.decode_image", "torchvision.io.decode_jpeg", "torchvision.io.read_file",
    "torchvision.io.read_video",
    "torchvision.transforms.functional.to_tensor", "torchvision.transforms.functional.pil_to_tensor",
})
# Libraries whose functions take and return host data only (numpy arrays, PIL images): no NPU work there.
HOST_LIBRARIES = ("numpy", "pandas", "cv2", "librosa", "soundfile", "imageio", "PIL")
# Moving a host value: ``.cuda()`` / ``.npu()`` (numpy arrays have neither); ``.to(...)`` unless it names only a dtype
# or the CPU (call_values decides from the arguments).
MOVES = frozenset({"to", "cuda", "npu"})


def of_call(qualname: str) -> Optional[Value]:
    """The value a call of a torch / numpy / pandas function or class returns (None: unknown)."""
    if qualname in HOST_TENSOR_SOURCES:
        return HOST, CPU_TENSOR
    root = qualname.split(".", 1)[0]
    if root in HOST_LIBRARIES:   # OpenCV's, librosa's functions take and return numpy arrays
        return HOST, None
    if qualname in PYTHON_RESULTS:
        return OBJECT, PYTHON_RESULTS[qualname]   # ``world_size() > 1``: a Python bool, no mask
    if qualname == "torch.device":
        return DEVICE, None
    if qualname in MASK_FUNCTIONS:
        return MASK, None
    cls = of_class(qualname)
    if cls is not None:
        return cls
    if qualname.startswith(TENSOR_MODULES) or qualname in TORCHVISION_TENSOR_OPS:
        return TENSOR, None
    head, _, last = qualname.rpartition(".")
    if head == "torch" and last[:1].islower() and last not in NOT_TENSOR and not last.startswith(("is_", "are_")):
        return TENSOR, None   # ``torch.is_autocast_enabled()``: a Python bool
    return None


# Methods only torch tensors have (numpy, pandas, nn.Module and Python's types have none of them): their result is a
# tensor whatever the receiver (``x.long().flatten()``: ``flatten`` is a tensor's).
TENSOR_ONLY_METHODS = frozenset({"long", "int", "short", "byte", "char", "contiguous", "detach", "unsqueeze",
                                 "permute", "masked_fill", "clamp", "softmax", "log_softmax", "sigmoid", "view_as",
                                 "expand_as", "type_as", "new_zeros", "new_ones", "new_full", "new_empty",
                                 "unflatten", "index_select", "masked_select"})
# Methods only torch tensors have (numpy and pandas have none of them): a mask whatever the receiver.
TENSOR_ONLY_MASK_METHODS = frozenset({"bool", "isnan", "isinf", "isfinite", "isneginf", "isposinf", "logical_and",
                                      "logical_or", "logical_not", "logical_xor", "signbit"})


# Methods numpy arrays have and torch tensors do not: their result is a host array whatever the model took the
# receiver for (``(g_pids[idx] == q_pids[:, None]).astype(np.int32)``: a comparison of unknowns is no tensor then).
NUMPY_ONLY_METHODS = frozenset({"astype", "tobytes", "tofile", "byteswap", "getfield", "setfield", "dumps"})


def of_method(receiver: Optional[Value], method: str) -> Optional[Value]:
    """The value ``receiver.method(...)`` returns."""
    if method in NUMPY_ONLY_METHODS:
        return HOST, None
    if receiver is None:
        if method in ("numpy", "cpu") or method in PANDAS_ONLY_METHODS:
            return HOST, None   # whatever had ``.numpy()`` / ``.cpu()``: host data, no NPU work
        if method == "tolist":
            return LIST, None
        if method in TENSOR_ONLY_MASK_METHODS:
            return MASK, None
        return (TENSOR, None) if method in TENSOR_ONLY_METHODS or method in GRAPH_COUNT_METHODS else None
    kind, cls = receiver
    if kind in TENSORS:
        if method.startswith("is_"):
            return None   # ``x.is_inference()``, ``x.is_pinned()``: a Python bool
        if method == "cpu":
            return HOST, CPU_TENSOR   # host data (no NPU work), still a torch tensor for its methods
        if method == "numpy":
            return HOST, None
        if method == "tolist":
            return LIST, None
        if method in ("all", "any") :
            return MASK, None
        if kind == MASK and method in MASK_KEEPING:
            return MASK, None
        if method in MASK_METHODS:
            return MASK, None
        if method in NOT_TENSOR_METHODS:
            return None
        return TENSOR, None
    if kind == HOST and cls == HOST_ENCODING:   # ``enc.get("input_ids")``: one of its host tensors
        return (HOST, CPU_TENSOR) if method in ("get", "pop") else (HOST, cls) if method in ("to", "cpu") else None
    if kind == HOST and cls == CPU_TENSOR:
        if method == "tolist":
            return LIST, None
        if method in TENSOR_TUPLES:   # ``x.cpu().max(-1)``, ``x.cpu().split(n)``: host tensors (values, indices,
            return HOST, CPU_TENSOR   # pieces), one of them or the tuple's fields (``.indices``)
        return (HOST, None) if method == "numpy" else None if method in NOT_TENSOR_METHODS else (HOST, CPU_TENSOR)
    if kind == HOST:
        return (HOST, None) if method not in ("item", "tolist") else None
    if kind == LIST and method == "copy":
        return LIST, None
    if kind == MODULE and method in MODULE_KEEPING:
        return MODULE, cls
    if kind == DISTRIBUTION and method in DISTRIBUTION_TENSORS:
        return TENSOR, None
    return None


def tensor_function(name: str) -> bool:
    """``torch.split``, ``torch.Tensor.split``, ``torch.linalg.qr``: not ``torch.__version__.split``."""
    if name.startswith("torch.Tensor."):
        return True
    value = of_call(name)
    return value is not None and value[0] in TENSORS
