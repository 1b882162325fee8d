"""NPU419: an input whose shape is the data's own size (an image file decoded at its own resolution, a recording read
whole, a text tokenized without padding to a fixed length) reaching a model or the device, per call or per item.

The model's question is :func:`npu_lint.analysis.natural_sizes.natural_source`: which call gives a value the
input's own size. This rule finds where such a value enters device compute (a ``.to(device)`` / ``.cuda()`` /
``.npu()`` of it, an ``nn.Module`` called with it or its ``generate`` / ``forward``, or the file's function it is
handed to that runs a model on it, as NPU417 reads it) and reports once, at the call that made the value in that
function: the reader, the tokenizer call, or the call of the file's helper returning one."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.aspect_resizes import ASPECT, aspect_resize, original_size_resize, own_size_resize
from npu_lint.analysis.prompt_lengths import FACTORIES, prompt_sized
from npu_lint.analysis.summaries import return_statements
from npu_lint.analysis.grad_free import grad_free_callee
from npu_lint.analysis.natural_sizes import PROCESSOR, TOKEN_LIST, natural_source
from npu_lint.analysis.nodes import walk
from npu_lint.analysis.setup_time import runs_at_setup
from npu_lint.analysis.window_buffers import BUFFER_FACTORIES, BUFFER_METHODS, window_buffer
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES, Rule, method_position, short_source
from npu_lint.rules.value_flow import FAMILY
from npu_lint.rules.whole_samples import _handed_to, _runs_model

_MOVES = frozenset({"to", "cuda", "npu"})
# Methods of a model that run its forward on their arguments.
_FORWARDS = frozenset({"generate", "forward", "__call__"})
_DTYPES = frozenset({"float", "float16", "float32", "float64", "half", "bfloat16", "double", "long", "int", "int64",
                     "int32", "int16", "int8", "uint8", "bool", "complex64", "complex128"})
# Calls that make a tensor of their data, on the device given by ``device=``.
_DATA_TENSORS = frozenset({"torch.tensor", "torch.as_tensor"})
# The trigger words of readers and tokenizers (the others only bring resizes and generation loops).
_READER_WORDS = ("return_tensors", "imread", "Image.open", "read_image", "decode_image", "torchaudio", "soundfile",
                 "librosa", "wavfile", "audiofile", "input_ids", ".encode(")
# ``nn.Module``'s own API: a call of it does not run the model on its arguments.
_MODULE_API = frozenset({"to", "cuda", "npu", "cpu", "eval", "train", "half", "float", "double", "bfloat16", "apply",
                         "load_state_dict", "state_dict", "parameters", "named_parameters", "buffers", "modules",
                         "named_modules", "children", "register_buffer", "register_forward_hook", "requires_grad_",
                         "zero_grad", "add_module", "register_module", "get_submodule", "type", "share_memory",
                         "from_pretrained", "save_pretrained", "set_image", "load", "save"})
_FACTORY_NAMES = frozenset(name.rpartition(".")[2] for name in FACTORIES)
_BUFFER_NAMES = frozenset(name.rpartition(".")[2] for name in BUFFER_FACTORIES) | BUFFER_METHODS
_RESIZE_NAMES = frozenset({"interpolate", "upsample", "resize", "rescale", "zoom", "thumbnail"})
# Methods a transform object runs on its input (torchvision / albumentations style).
_TRANSFORM_METHODS = frozenset({"__call__", "apply", "forward"})
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)


class NaturalSizeInputs(Rule):
    """An input at the data's own size (an image file as decoded, a whole recording, an unpadded tokenized text) reaching a model per call.

    What it does:
        Flags the call that gives a value the input's own size, when the value reaches device compute in the same
        function: a whole file decoded by a reader of ``rule_tables/natural_size_sources.tsv``
        (``PIL.Image.open``, ``cv2.imread``, ``torchvision.io.read_image``, ``torchaudio.load``, ``soundfile.read``,
        ``librosa.load`` ..., without a window keyword such as ``num_frames=`` or ``duration=``), or a text
        tokenized to tensors without padding (``tok(text, return_tensors="pt")``, ``tok.encode(...,
        return_tensors="pt")``, ``apply_chat_template(..., return_tensors="pt")``: ``padding`` absent, ``False`` or
        ``"do_not_pad"``, the text not a constant, no image or audio input), also through the file's functions
        returning one (the call of the helper is reported), or a text tokenized to a list of ids by a callee named a
        tokenizer (``tokenizer(prompt).input_ids``, ``tok.encode(prompt)``) that the code makes a tensor
        (``torch.as_tensor([input_ids], device=device)``, ``torch.tensor(ids)``: reported there, where the tensor of
        the text's length is made), or an image resized keeping its aspect ratio: to a size computed from its own
        height and width by a ratio to them, their minimum or maximum, or a size helper given them
        (``k = 512 / min(h, w)``, ``cv2.resize(img, None, fx=r, fy=r)``, ResizeLongestSide's ``apply_image``), reported at the
        resize or at the call of the function (of this module or, through the project index, another) that
        returns one; a resize to a size only derived from the input's own (``256 * ceil(h / 256)``) keeps the
        input's size. Also reported at the resize itself: a device tensor brought back to an input image's own
        size as the host holds it (``F.interpolate(pred, img.shape[:2])``, ``img.size[::-1]`` of a PIL image; not
        a tensor's ``x.shape[-2:]``), and a transform's ``__call__`` / ``apply`` returning its image resized to a
        size computed from its own height and width (a random size is NPU404's), or a PIL ``img.thumbnail(size)``
        (in place, the aspect ratio kept) whose image the function returns. An image processor given
        ``images=`` with ``return_tensors=`` in a module that maps outputs back with ``target_sizes=`` (a
        DETR-style detection or segmentation processor, resizing each image keeping its aspect ratio) is a
        source too, and the entries of a result moved in a comprehension
        (``{k: v.to(device) for k, v in inputs.items()}``) keep its size. And, in a generation function (a
        loop of its own calls a model and reads a token back: ``.item()``, ``argmax``, ``multinomial``; not a
        ``forward``), positions made before the loop (``torch.arange``) in a size read from a parameter's length
        (``input_pos = torch.arange(0, prompt.size(0))``): the prefill at each prompt's own length. The size is followed through names, tuple unpacking,
        keys and indices (``tokens["input_ids"]``, ``x[None]``), arithmetic and the calls that only convert, move or
        add an axis (``np.array``, ``.convert("RGB")``, ``torch.from_numpy``, ``to_tensor``, ``.permute``,
        ``.unsqueeze(0)``, ``.float()``), a list around it (``[input_ids]``) and a truncation at one end
        (``ids[-max_len:]``, ``x[:, :n]``: shorter inputs keep their size); it reaches device compute where it is
        moved (``.to(device)``, ``.cuda()``, ``.npu()``, not ``.to(torch.float32)``; ``torch.tensor(x, device=d)``), passed to an ``nn.Module`` (or its ``generate`` / ``forward``, ``x.forward(...)`` of a receiver of unknown
        kind included, or a method of the project's own model
        class: ``self.face_det.detect_faces(img)``),
        handed to an inference entry (a function or a class's ``__call__`` declared ``@torch.no_grad()`` /
        ``@torch.inference_mode()``, of this module or another, for the parameters it hands whole to its model:
        every use is a model call or a move, no resize or helper touches them), or handed to the file's function
        that moves it, runs a model on it or hands it on (two deep; as NPU417 reads a model run). Left alone:
        anything that may
        fix the size on the way (a resize, a crop, a pad, a window slice with both ends, a transform object, any call the
        model does not know), ``padding="max_length"`` and ``pad_to_multiple_of=`` (fixed or bucketed lengths),
        ``padding=True`` (NPU405's), a constant text (also a name or ``self.x`` bound only to constant strings), a
        call with nothing saying it tokenizes text (an image processor takes ``return_tensors=`` too: the text must
        be given as ``text=``, be evidently a string -- an f-string, a joined or formatted string, a parameter
        annotated ``str`` -- or a tokenizer's keyword be given (``truncation=``, ``max_length=``,
        ``add_special_tokens=``), or the result be read for ``input_ids`` / ``attention_mask``, or the method be
        ``encode`` / ``apply_chat_template``, or the module read tokenizer attributes such as ``eos_token_id`` of
        the same receiver), work that stays on the host, constructors and code run once at setup, and module-level
        code outside a loop (one input per run).
        Also a sliding-window (tiled) predictor's buffer of the whole input: ``torch.zeros((c, *image.shape[1:]))``
        (``x.new_zeros(x.shape)``) of a parameter's spatial sizes, filled in the function's loop window by window
        (``acc[sl] += pred``, ``out[..., y0:y1, x0:x1] = tile``); not a buffer filled row by row, by row prefixes or
        stripes, or of the batch only.
    Why it matters on NPU:
        Every image, recording or prompt brings its own height and width, number of frames or number of tokens, so
        each call runs the model's forward at a new shape: every operator compiles again on NPU (with graph capture
        or static-shape execution, a fallback), and an inference service or an evaluation over many inputs spends
        its time compiling.
    Example:
        def caption(model, tokenizer, prompt: str, device):
            inputs = tokenizer(prompt, return_tensors="pt").to(device)
            return model.generate(**inputs)
    Use instead:
        Bring every input to one of a few fixed sizes: ``padding="max_length"`` with ``truncation=True`` and a
        ``max_length`` (or pad to a multiple of a bucket), resize or pad images to a fixed size (letterbox) and
        crop the output, cut recordings into fixed-length chunks and overlap-add the outputs.
    Fix safety:
        No automatic fix: padding, resizing or chunking changes what the model sees and needs masks or crops.
    """

    code = "NPU419"
    name = "natural-size-inputs"
    family = FAMILY
    node_types = (ast.Call,)
    triggers = ("return_tensors", "imread", "Image.open", "read_image", "decode_image", "torchaudio", "soundfile",
                "librosa", "wavfile", "audiofile", "input_ids", ".encode(", "resize", "zoom", "ImageOps",
                "multinomial", ".shape[:2]", ".shape[0:2]", ".size[::-1]", ".thumbnail(",
                ".shape[1:]", ".shape[2:]", "new_zeros(", "new_empty(")

    @staticmethod
    def project_triggers(project) -> frozenset[str]:
        """Files that call a project function resizing keeping the aspect ratio (``self.transform.apply_image``)."""
        return project.aspect_names()
    prefill_message = "{call} is sized by the length of '{parameter}', given per call to {function}(), whose loop decodes with a model: the prefill runs at each prompt's own length, a recompile per length on NPU; pad prompts to a few bucket lengths (left padding with a mask)"
    original_message = "the output is resized to {size} (line {line}), an input image's own height and width: a new shape for every image, a recompile per size on NPU; keep the output at the model's size and resize on the host, or pad the inputs to a few fixed sizes"
    window_message = "{call} is a buffer of the whole input '{parameter}' at its own spatial size, filled window by window (line {line}): a sliding-window predictor's output and counts take each case's size, a recompile per size on NPU; pad the input to a few bucket sizes, or keep the buffer on the host"
    transform_message = "{method}() resizes its image to a size computed from its own height and width (its aspect ratio kept, or its own size rounded): every image of another size reaches the model at a new shape, a recompile per size on NPU; resize or letterbox to a few fixed sizes"
    message = "{what} (line {made}): {why}, so its shape is this input's own size ({dims}), and it reaches {sink} on line {line}: a new shape for every input, a recompile per size on NPU; {fix}"
    must_fire = (
        # a prompt tokenized without padding, moved and generated from, per call
        "import torch\ndef answer(model, tokenizer, prompt: str, device):\n"
        "    inputs = tokenizer(prompt, return_tensors='pt').to(device)\n"
        "    return model.generate(**inputs)\n",
        # the input ids of an unpadded encoding fed to an nn.Module per question
        "import torch\ndef evaluate(model: torch.nn.Module, tokenizer, questions):\n"
        "    for q in questions:\n        tokens = tokenizer.encode(f'Q: {q}', return_tensors='pt')\n"
        "        logits = model(tokens)\n",
        # an image file decoded at its own size, converted and moved to the device in a loop over files
        "import numpy as np\nimport torch\nfrom PIL import Image\ndef run(net, paths, device):\n"
        "    for p in paths:\n        img = np.array(Image.open(p).convert('RGB'))\n"
        "        x = torch.from_numpy(img).permute(2, 0, 1)[None].float() / 255.0\n"
        "        y = net(x.to(device))\n",
        # a whole recording returned by the file's helper (the helper's call is reported)
        "import torch\nimport soundfile as sf\ndef _load(path):\n    return sf.read(path, dtype='float32')\n"
        "def enhance(model: torch.nn.Module, path):\n    wav, sr = _load(path)\n"
        "    x = torch.from_numpy(wav)[None]\n    return model(x.cuda())\n",
        # the element of the tokenizer output taken by key, then moved
        "import torch\nclass Scorer:\n    def score(self, text):\n"
        "        enc = self.tokenizer(text, return_tensors='pt', add_special_tokens=False)\n"
        "        ids = enc['input_ids'].to(self.device)\n        return self.model(ids)\n",
        # a recording handed to the file's helper, which hands it to another that moves it to the device
        "import torch\nimport soundfile as sf\ndef torch_run(model, wav):\n    wav = wav.to(model.device)\n"
        "    return model(wav)\ndef numpy_run(model, wav):\n    return torch_run(model, torch.from_numpy(wav)).numpy()\n"
        "def run_file(model, path):\n    wav, sr = sf.read(path)\n    out = numpy_run(model, wav.T[None])\n",
        # an image file per loop handed to an instance whose __call__ runs without gradients
        "import numpy as np\nimport torch\nfrom PIL import Image\nclass Runner:\n    @torch.inference_mode()\n"
        "    def __call__(self, image):\n        return self.model(image)\n"
        "def batch(paths):\n    runner = Runner()\n    for p in paths:\n"
        "        out = runner(np.array(Image.open(p).convert('RGB')))\n",
        # a prompt tokenized to a list of ids, truncated to the context, made a tensor on the device per request
        "import torch\n@torch.inference_mode()\ndef generate_stream(model, tokenizer, params, device, context_len):\n"
        "    input_ids = tokenizer(params['prompt']).input_ids\n    input_ids = input_ids[-context_len:]\n"
        "    start_ids = torch.as_tensor([input_ids], device=device)\n"
        "    return model(input_ids=start_ids)\n",
        # ids of an encoded question, joined with answer ids, made a tensor and moved per text
        "import torch\ndef score(model, texts, answers):\n    for text, ans in zip(texts, answers):\n"
        "        ids = model.tokenizer.encode(text) + ans\n"
        "        x = torch.tensor([ids]).to(model.device)\n        out = model(input_ids=x)\n",
        # an image resized keeping its aspect ratio (shortest side to a target) by the file's method, then moved
        "import cv2\nimport numpy as np\nimport torch\nclass Detector(torch.nn.Module):\n"
        "    def transform(self, image):\n        short = np.min(image.shape[0:2])\n"
        "        r = float(self.target_size) / float(short)\n"
        "        image = cv2.resize(image, None, None, fx=r, fy=r)\n"
        "        return torch.from_numpy(image.transpose(2, 0, 1)).unsqueeze(0), r\n"
        "    def detect(self, image):\n        x, self.r = self.transform(image)\n"
        "        return self(x.to(self.device))\n",
        # the longest side brought to a length by a size helper, then made a device tensor (ResizeLongestSide)
        "import numpy as np\nimport torch\nfrom torchvision.transforms.functional import resize, to_pil_image\n"
        "def shape_for(h, w, long_side):\n    s = long_side / max(h, w)\n    return int(h * s + 0.5), int(w * s + 0.5)\n"
        "class Predictor:\n    def set_image(self, image):\n"
        "        size = shape_for(image.shape[0], image.shape[1], 1024)\n"
        "        x = np.array(resize(to_pil_image(image), size))\n"
        "        t = torch.as_tensor(x, device=self.device)\n        self.features = self.model.image_encoder(t)\n",
        # a PIL image resized to a shorter side of 512 in a loop, then run through an nn.Module
        "import torch\nimport torchvision.transforms.functional as TF\ndef run(net: torch.nn.Module, images):\n"
        "    for img in images:\n        w, h = img.size\n        k = 512 / min(w, h)\n"
        "        x = TF.to_tensor(img.resize((int(w * k), int(h * k))))\n        y = net(x[None])\n",
        # a model's prediction brought back to the input image's own size (PIL's size reversed, an HWC array's)
        "import torch\nimport torch.nn.functional as F\nclass Remover:\n    def process(self, img):\n"
        "        shape = img.size[::-1]\n        x = self.transform(img).unsqueeze(0).to(self.device)\n"
        "        pred = F.interpolate(self.model(x), shape, mode='bilinear')\n        return pred.cpu().numpy()\n",
        # a transform whose __call__ resizes its image to a size computed from its own (aspect kept, snapped to 32)
        "from PIL import Image\nclass DynamicResize:\n    def __init__(self, L=1280):\n        self.L = L\n"
        "    def __call__(self, img):\n        w, h = img.size\n        k = self.L / min(w, h)\n"
        "        size = (int(round(w * k / 32)) * 32, int(round(h * k / 32)) * 32)\n"
        "        return img.resize(size, Image.BILINEAR)\n",
        # the image resized keeping its aspect ratio handed to a method of the project's own model
        "import cv2\nimport torch\nclass Net(torch.nn.Module):\n    def detect_faces(self, img, thr):\n"
        "        return self(torch.from_numpy(img))\n"
        "class Helper:\n    def __init__(self):\n        self.det = Net()\n    def landmarks(self, resize=640):\n"
        "        h, w = self.img.shape[0:2]\n        scale = min(h, w) / resize\n"
        "        small = cv2.resize(self.img, (int(w / scale), int(h / scale)))\n"
        "        return self.det.detect_faces(small, 0.9)\n",
        # a detection processor (its outputs mapped back with target_sizes=), every entry moved in a comprehension
        "import torch\nclass Detector:\n    def infer(self, image):\n        with torch.no_grad():\n"
        "            inputs = self.processor(images=image, return_tensors='pt')\n"
        "            inputs = {k: v.to(self.device) for k, v in inputs.items()}\n"
        "            self.out = self.model(**inputs)\n    def boxes(self, sizes):\n"
        "        return self.processor.post_process_object_detection(self.out, target_sizes=sizes)\n",
        # positions of the prompt (its own length) before the decoding loop of a generation function
        "import torch\n@torch.inference_mode()\ndef generate(model: torch.nn.Module, prompt, max_new: int):\n"
        "    T = prompt.size(0)\n    input_pos = torch.arange(0, T, device=prompt.device)\n    tokens = []\n"
        "    token = prompt\n    for _ in range(max_new):\n        logits = model(token.view(1, -1), input_pos)\n"
        "        token = torch.multinomial(torch.softmax(logits[0, -1], -1), 1)\n        tokens.append(token)\n"
        "        input_pos = input_pos[-1:] + 1\n    return tokens\n",
        # a PIL image shrunk in place keeping its aspect ratio, returned by the preprocessing as a tensor
        "import numpy as np\nimport torch\nclass Matting:\n    def preprocess(self, data):\n"
        "        resized = data.copy()\n        resized.thumbnail(self.input_image_size, resample=3)\n"
        "        image = np.array(resized, dtype=np.float64) / 255.0\n"
        "        return torch.from_numpy(image).permute(2, 0, 1)[None].float()\n",
        # the prompt's ids (a conditional: the prompt first, then one token) run through an explicit forward
        "class Pipeline:\n    def encode(self, x):\n        return self.tokenizer.encode(x)\n"
        "    def generate(self, ctx, n, state=None):\n        for i in range(n):\n"
        "            tokens = self.encode(ctx) if i == 0 else [token]\n"
        "            out, state = self.model.forward(tokens, state)\n            token = int(out.argmax())\n")
    must_not_fire = (
        # padded to a fixed length; padding=True (NPU405's); a constant prompt
        "import torch\ndef answer(model, tokenizer, prompt, device):\n"
        "    inputs = tokenizer(prompt, padding='max_length', truncation=True, max_length=128,\n"
        "                       return_tensors='pt').to(device)\n    return model(**inputs)\n",
        "import torch\ndef answer(model, tokenizer, prompts, device):\n"
        "    inputs = tokenizer(prompts, padding=True, return_tensors='pt').to(device)\n    return model(**inputs)\n",
        "import torch\nclass GenTest:\n    input_text = 'Hello my name is'\n    def test_generate(self):\n"
        "        enc = self.tokenizer(self.input_text, return_tensors='pt')\n"
        "        self.model.generate(input_ids=enc.input_ids.to(0))\n",
        "import torch\ndef warmup(model, tokenizer, device):\n"
        "    inputs = tokenizer('hello world', return_tensors='pt').to(device)\n    return model(**inputs)\n",
        # an image resized to a constant size, or given to a transform; a window read of a recording
        "import numpy as np\nimport torch\nimport cv2\ndef run(net, paths, device):\n"
        "    for p in paths:\n        img = cv2.resize(cv2.imread(p), (640, 640))\n"
        "        y = net(torch.from_numpy(img).to(device))\n",
        "import torch\nfrom PIL import Image\ndef run(net, paths, transform, device):\n"
        "    for p in paths:\n        x = transform(Image.open(p).convert('RGB'))\n        y = net(x.to(device))\n",
        "import torch\nimport torchaudio\ndef run(model: torch.nn.Module, path):\n"
        "    wav, sr = torchaudio.load(path, frame_offset=0, num_frames=16000)\n    return model(wav.cuda())\n",
        # host-only work: the image is measured and saved, never reaches a model or the device; a dtype cast
        "import numpy as np\nfrom PIL import Image\nimport torch\ndef sizes(paths):\n"
        "    for p in paths:\n        img = np.array(Image.open(p))\n        t = torch.from_numpy(img).to(torch.float32)\n"
        "        print(t.mean())\n",
        # the sample rate, not the data; a processor's image input (resized by the processor)
        "import torch\nimport torchaudio\ndef rate(model: torch.nn.Module, path):\n"
        "    wav, sr = torchaudio.load(path)\n    return model(torch.tensor([sr]).cuda())\n",
        "import torch\nfrom PIL import Image\ndef caption(model, processor, path, device):\n"
        "    inputs = processor(images=Image.open(path), return_tensors='pt').to(device)\n"
        "    return model.generate(**inputs)\n",
        # a recording handed to the file's helper that only measures it on the host
        "import torch\nimport soundfile as sf\ndef stats(wav):\n    return float(wav.mean()), wav.shape[0]\n"
        "def run_file(model: torch.nn.Module, path):\n    wav, sr = sf.read(path)\n    return stats(wav)\n",
        # an image processor given its image positionally (nothing says text: no str, no token fields read)
        "import torch\ndef check(self, image, device):\n"
        "    inp = self.feature_extractor(self.numpy_to_pil(image), return_tensors='pt').to(device)\n"
        "    return self.safety_checker(images=image, clip_input=inp.pixel_values)\n",
        # an inference entry that letterboxes its image to a fixed size before its model
        "import torch\nfrom PIL import Image\n@torch.no_grad()\ndef predict_image(model, image, imgsz=640):\n"
        "    x = letterbox(image, imgsz)\n    return model(x)\n"
        "def run(model, paths):\n    for p in paths:\n        res = predict_image(model, Image.open(p).convert('RGB'))\n",
        # a module built here on the CPU (no device, never moved): data preparation on the host
        "import torch\nimport torchaudio\ndef prompts(paths):\n    mel = torch.nn.Conv1d(1, 8, 3)\n    out = []\n"
        "    for p in paths:\n        wav, sr = torchaudio.load(p)\n        out.append(mel(wav))\n    return out\n",
        # module-level code outside a loop: one input per run; a constructor
        "import torch\nfrom PIL import Image\nimport numpy as np\nimport sys\n"
        "img = torch.from_numpy(np.array(Image.open(sys.argv[1]))).cuda()\n",
        "import torch\nclass Prompted(torch.nn.Module):\n    def __init__(self, tokenizer, prefix):\n"
        "        super().__init__()\n        self.register_buffer('ids', tokenizer(prefix, return_tensors='pt').input_ids.cuda())\n",
        # the file's own helper read for input_ids (it pads with pad_sequence: NPU405's); ids padded to a fixed
        # length; a constant prompt's ids; ids only counted on the host
        "import torch\nfrom torch.nn.utils.rnn import pad_sequence\ndef _batch_tokens(rows):\n"
        "    return {'input_ids': pad_sequence([torch.tensor(r) for r in rows], batch_first=True)}\n"
        "def run(model, rows):\n    x = _batch_tokens(rows)['input_ids'].to(model.device)\n    return model(x)\n",
        "import torch\ndef answer(model, tokenizer, prompt, device):\n"
        "    ids = tokenizer(prompt, padding='max_length', max_length=64, truncation=True).input_ids\n"
        "    return model(torch.as_tensor([ids], device=device))\n",
        "import torch\ndef warm(model, tokenizer, device):\n    ids = tokenizer.encode('hello world')\n"
        "    return model(torch.tensor([ids], device=device))\n",
        "import torch\nSUFFIX = '<|im_end|>'\ndef encode(tokenizer, texts, device):\n"
        "    suffix = tokenizer([SUFFIX] * len(texts), return_tensors='pt').to(device)\n"
        "    return suffix.input_ids\n",
        "import torch\ndef count(tokenizer, prompts):\n"
        "    return torch.tensor([len(tokenizer(p).input_ids) for p in prompts]).sum()\n",
        # a model's own upsampling: twice its input's size, or snapped to a multiple of 32 of an input of unknown size
        "import torch\nimport torch.nn.functional as F\nclass Up(torch.nn.Module):\n    def forward(self, x):\n"
        "        y = F.interpolate(x, size=(x.shape[2] * 2, x.shape[3] * 2))\n        return self.conv(y)\n",
        "import cv2\nimport torch\ndef run(model: torch.nn.Module, img, device):\n    h, w = img.shape[:2]\n"
        "    x = cv2.resize(img, (w // 32 * 32, h // 32 * 32))\n    return model(torch.from_numpy(x).to(device))\n",
        # an aspect-keeping resize that stays on the host (a picture for display, saved)
        "import cv2\nimport numpy as np\ndef thumb(img, path):\n    k = 256 / max(img.shape[:2])\n"
        "    small = cv2.resize(img, None, fx=k, fy=k)\n    cv2.imwrite(path, small)\n",
        # a segmentation head upsampled to its input tensor's size (NCHW), and a host mask resized to the image
        "import torch\nimport torch.nn.functional as F\ndef predict(model: torch.nn.Module, x):\n"
        "    return F.interpolate(model(x), size=x.shape[-2:], mode='bilinear')\n",
        "import cv2\nimport torch\ndef overlay(model: torch.nn.Module, img, x):\n"
        "    mask = model(x).cpu().numpy()[0]\n    return cv2.resize(mask, img.shape[:2][::-1])\n",
        # an image processor in a module that never maps outputs back to the images' sizes (a fixed-size one)
        "import torch\nclass Classifier:\n    def infer(self, image):\n"
        "        inputs = self.processor(images=image, return_tensors='pt')\n"
        "        inputs = {k: v.to(self.device) for k, v in inputs.items()}\n        return self.model(**inputs)\n",
        # positions sized by the input in a model's forward (no decoding loop), or by a fixed length
        "import torch\nclass GPT(torch.nn.Module):\n    def forward(self, idx):\n"
        "        pos = torch.arange(0, idx.size(1), device=idx.device)\n        return self.head(self.wte(idx) + self.wpe(pos))\n",
        "import torch\ndef generate(model: torch.nn.Module, prompt, max_len: int):\n"
        "    buf = torch.zeros(1, max_len, dtype=torch.long)\n    for i in range(max_len):\n"
        "        tok = model(buf).argmax()\n        buf[0, i] = tok.item()\n    return buf\n",
        # a transform resizing to a fixed size; a random scale (NPU404's)
        "from PIL import Image\nclass StaticResize:\n    def __call__(self, img):\n"
        "        return img.resize((1024, 1024), Image.BILINEAR)\n",
        "import random\nimport torch.nn.functional as F\nclass Jitter:\n    def __call__(self, imgs):\n"
        "        sz = random.choice([320, 416, 512])\n        sf = sz / max(imgs.shape[2:])\n"
        "        return F.interpolate(imgs, scale_factor=sf)\n")
    # session 21 (padmax21): an aspect-kept resize pasted on a canvas of its own size rounded up to a stride (CRAFT's
    # resize_aspect_ratio); a letterbox on a canvas of a size given to the function stays fixed
    _CANVAS = ("import cv2\nimport numpy as np\nimport torch\ndef resize_keep(img, long_size):\n"
               "    h, w, c = img.shape\n    r = long_size / max(h, w)\n    th, tw = int(h * r), int(w * r)\n"
               "    proc = cv2.resize(img, (tw, th))\n    th32, tw32 = th + (32 - th % 32), tw + (32 - tw % 32)\n"
               "    {canvas}\n    out[0:th, 0:tw, :] = proc\n    return out, r\n"
               "def predict(net: torch.nn.Module, image):\n    x, r = resize_keep(image, 1280)\n"
               "    x = torch.from_numpy(x).permute(2, 0, 1).unsqueeze(0).cuda()\n    return net(x)\n")
    must_fire += (_CANVAS.format(canvas="out = np.zeros((th32, tw32, c), dtype=np.float32)"),)
    must_not_fire += (_CANVAS.format(canvas="out = np.zeros((long_size, long_size, 3), dtype=np.float32)"),)
    must_fire += (  # session 20 (natural20b): a sliding-window predictor's buffers of the whole input
        "import torch\nclass Predictor:\n    def sliding(self, data: torch.Tensor, slicers):\n"
        "        logits = torch.zeros((self.heads, *data.shape[1:]), dtype=torch.half)\n"
        "        for sl in slicers:\n            logits[sl] += self.network(data[sl][None])[0]\n        return logits\n",
        "import torch\ndef tiled(model, img, t):\n    out = img.new_zeros(img.shape)\n    h, w = img.shape[-2:]\n"
        "    for y in range(0, h, t):\n        for x in range(0, w, t):\n"
        "            out[..., y:y + t, x:x + t] = model(img[..., y:y + t, x:x + t])\n    return out\n")
    must_not_fire += (  # a buffer filled row by row, a histogram over one dimension, a buffer of the batch only
        "import torch\ndef rows(model, x):\n    out = torch.zeros(x.shape[1:])\n    for i in range(len(x)):\n"
        "        out[i] = model(x[i])\n    return out\n",
        "import torch\ndef hist(x, labels):\n    counts = torch.zeros(x.shape[1])\n    for l in labels:\n"
        "        counts[l] += 1\n    return counts\n",
        "import torch\ndef preds(model, x, bs):\n    out = torch.zeros(x.shape[0], 10)\n"
        "    for i in range(0, len(x), bs):\n        out[i:i + bs] = model(x[i:i + bs])\n    return out\n",
        # a mask of the input's shape cut per row at each length; one stripe of a map at a time
        "import torch\ndef masks(x, lengths):\n    m = torch.ones(x.shape[0], x.shape[1], dtype=torch.bool)\n"
        "    for i, n in enumerate(lengths):\n        m[i, n:] = False\n    return m\n",
        "import torch\ndef stitch(source, parts):\n    out = torch.zeros(source.shape[0], 1, source.shape[2], source.shape[3])\n"
        "    for k, p in enumerate(parts):\n        a, b = k * 4, (k + 1) * 4\n        out[:, :, a:b, :] = p[:, :, a:b, :]\n"
        "    return out\n")

    def check(self, node: object, ctx: FileContext) -> None:
        assert isinstance(node, ast.Call)
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if called in _RESIZE_NAMES and self._resized(node, ctx) or called in _FACTORY_NAMES and self._prefill(node, ctx):
            return
        if called in _BUFFER_NAMES and self._window_buffer(node, ctx):
            return
        full = ctx.scratch.get("natural_full")
        if full is None:   # a reader or a tokenizer named in the file: the handoffs to helpers and entries matter
            full = ctx.scratch["natural_full"] = any(word in ctx.source for word in _READER_WORDS)
        if not full and not _general(ctx):
            return   # the file names only what the branches above look for (``.shape[2:]``, ``new_zeros(``)
        function = ctx.enclosing(node, FUNCTION_TYPES)   # where the call runs first: no value asked for a call
        if function is None:                              # of a constructor or of module-level code
            if ctx.enclosing(node, _LOOPS) is None:
                return      # module-level code outside a loop: one input per run
        elif isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                function.name == "__init__" or runs_at_setup(function, ctx.resolver)):
            return
        values = _entering(node, ctx, handoffs=full)
        if not values:
            return
        resolver = ctx.resolver
        scope = None
        if resolver.scopes is not None:
            scope = resolver.scopes.scope_of(function) if function is not None else resolver.scopes.module
        if scope is None:
            return
        if isinstance(function, ast.Lambda):
            return
        reported = ctx.scratch.setdefault("natural_sizes", set())
        comprehension = ctx.enclosing(node, _COMPREHENSIONS)
        if comprehension is not None and ctx.enclosing_any(comprehension, FUNCTION_TYPES) is function:
            scope = resolver.scopes.scope_of(comprehension) or scope   # ``{k: v.to(d) for k, v in enc.items()}``
        for value, sink, handed in values:
            found = natural_source(resolver, value, scope)
            if found is None:
                continue
            source, why = found
            if id(source) in reported or not _inside(source, function, ctx):
                continue
            if handed is not None and not uses_on_device(handed[0], handed[1], ctx):
                continue
            reported.add(id(source))
            tokens = "tokeniz" in why
            moved = isinstance(node.func, ast.Attribute) and node.func.attr in _MOVES and why != TOKEN_LIST \
                and ASPECT not in why and PROCESSOR not in why   # a resize keeping the aspect ratio: reported where
            #                                                        it is made
            where = node if moved else source     # the device tensor is made here; else where the value is made
            ctx.report(where, self.message.format(
                what=_describe(source), made=source.lineno, why=why, dims="its number of tokens" if tokens else
                "its number of frames" if "recording" in why else "its height and width", sink=sink, line=node.lineno,
                fix="pad to a fixed length (padding='max_length', truncation=True, max_length=N) or a few bucket "
                    "lengths" if tokens else "resize or pad to a few fixed sizes, or cut into fixed-length chunks"),
                at=method_position(node) if moved else None)
            return


    def _prefill(self, node: ast.Call, ctx: FileContext) -> bool:
        """``torch.arange(0, prompt.size(0))`` before the decoding loop of a generation function: sized by the
        length of the prompt it is given."""
        function = ctx.enclosing(node, FUNCTION_TYPES)
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or ctx.resolver.scopes is None \
                or function.name == "__init__":
            return False
        scope = ctx.resolver.scopes.scope_of(function)
        loop = ctx.enclosing(node, _LOOPS)
        in_loop = loop is not None and ctx.enclosing_any(loop, FUNCTION_TYPES) is function
        parameter = prompt_sized(ctx.resolver, node, function, scope, in_loop) if scope is not None else None
        if parameter is None:
            return False
        ctx.report(node, self.prefill_message.format(call=short_source(node), parameter=parameter,
                                                     function=function.name))
        return True

    def _window_buffer(self, node: ast.Call, ctx: FileContext) -> bool:
        """``acc = torch.zeros((c, *image.shape[1:]))`` filled window by window (``acc[sl] += pred``): a sliding-window
        predictor's buffer of the whole input, at each case's own size."""
        if isinstance(node.func, ast.Attribute) and node.func.attr not in BUFFER_METHODS \
                and ctx.resolver.qualname(node.func) not in BUFFER_FACTORIES:
            return False
        found = window_buffer(node, ctx)
        if found is None:
            return False
        ctx.report(node, self.window_message.format(call=short_source(node, 40), parameter=found[0],
                                                    line=found[1].lineno))
        return True

    def _resized(self, node: ast.Call, ctx: FileContext) -> bool:
        """A resize reported itself: a device tensor brought back to an input image's own size
        (``F.interpolate(pred, img.shape[:2])``), or a transform's ``__call__`` / ``apply`` returning its image
        resized keeping the aspect ratio (the pipeline hands it to the model)."""
        function = ctx.enclosing(node, FUNCTION_TYPES)
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or function.name == "__init__" \
                or runs_at_setup(function, ctx.resolver) or ctx.resolver.scopes is None:
            return False
        scope = ctx.resolver.scopes.scope_of(function)
        size = original_size_resize(ctx.resolver, node, scope)
        if size is not None:
            ctx.report(node, self.original_message.format(size=short_source(size), line=size.lineno))
            return True
        if isinstance(node.func, ast.Attribute) and node.func.attr == "thumbnail" and scope is not None \
                and _returned_natural(node, function, scope, ctx):
            ctx.report(node, self.transform_message.format(method=function.name))
            return True
        if function.name in _TRANSFORM_METHODS and scope is not None and scope.cls is not None \
                and _returns(function, node) and (aspect_resize(ctx.resolver, node, scope) or function.name != "forward"
                                                  and own_size_resize(ctx.resolver, node, scope) is not None):
            ctx.report(node, self.transform_message.format(method=function.name))
            return True
        return False


def _returned_natural(call: ast.Call, function: ast.AST, scope, ctx: FileContext) -> bool:
    """Some return of ``function`` holds what ``call`` made (as NPU419 follows sizes, through conversions)."""
    for ret in return_statements(function):
        value = ret.value.elts[0] if isinstance(ret.value, ast.Tuple) and ret.value.elts else ret.value
        if value is not None:
            found = natural_source(ctx.resolver, value, scope)
            if found is not None and found[0] is call:
                return True
    return False


def _returns(function: ast.AST, call: ast.Call) -> bool:
    """``return img.resize(size)``: the call is what the function returns (itself, or a name bound to it)."""
    for ret in return_statements(function):
        value = ret.value
        if value is call or isinstance(value, ast.Name) and any(
                isinstance(n, ast.Assign) and n.value is call and any(isinstance(t, ast.Name) and t.id == value.id
                                                                     for t in n.targets) for n in function.body):
            return True
    return False


def _describe(source: ast.AST) -> str:
    return short_source(source)


def _inside(source: ast.AST, function: Optional[ast.AST], ctx: FileContext) -> bool:
    """The source call sits in the same function as the sink (module level: not in a function)."""
    return ctx.enclosing_any(source, FUNCTION_TYPES) is function


# Words of a natural-size source the general path follows besides the readers and tokenizers (resizes keeping the
# aspect ratio, processors' original sizes, sampling): a file triggered only by the words of the window buffers and
# original-size outputs (``.shape[2:]``, ``new_zeros(``) is left to those branches, not walked call by call.
_GENERAL_WORDS = ("resize", "zoom", "ImageOps", ".thumbnail(", ".size[::-1]", "multinomial")


def _general(ctx: FileContext) -> bool:
    general = ctx.scratch.get("natural_general")
    if general is None:
        names = ctx.project.aspect_names() if ctx.project is not None else ()
        general = ctx.scratch["natural_general"] = any(word in ctx.source for word in _GENERAL_WORDS) \
            or any(name in ctx.source for name in names)
    return general


def _entering(node: ast.Call, ctx: FileContext,
              handoffs: bool = True) -> list[tuple[ast.AST, str, Optional[tuple[ast.FunctionDef, str]]]]:
    """The values this call brings into device compute, with a name for the sink: the receiver of a move to a
    device, the arguments of a model call or of the file's function that runs a model on them (``handoffs``: also
    inference entries and the file's helpers; asked only where the file names a reader or a tokenizer, the cost
    of the call-site index being paid there)."""
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in _MOVES:
        if func.attr == "to" and not _to_device(node, ctx):
            return []
        return [(func.value, f".{func.attr}()", None)]
    device = next((kw.value for kw in node.keywords if kw.arg == "device"), None)
    if device is not None and node.args and not (isinstance(device, ast.Constant) and device.value in (None, "cpu")) \
            and ctx.resolver.qualname(func) in _DATA_TENSORS:
        return [(node, "the device (device=)", None)]     # ``torch.as_tensor([ids], device=device)``: made there
    arguments = [*node.args, *(kw.value for kw in node.keywords)]
    arguments = [a.value if isinstance(a, ast.Starred) else a for a in arguments]
    if not arguments:
        return []
    resolver = ctx.resolver
    # a walked call's ancestors are known (a module-level one must not build the whole file's parent map)
    function = ctx.enclosing(node, FUNCTION_TYPES) if node in ctx.parents \
        else ctx.enclosing_any(node, FUNCTION_TYPES)
    scope = resolver.scopes.scope_of(function) if resolver.scopes is not None and function is not None else None
    value = resolver.value_of(func, scope) if scope is not None else resolver.value_of(func)
    if value is not None and value[0] == "module":
        if _host_module(func, function, ctx):
            return []
        return [(a, "the model", None) for a in arguments]
    if isinstance(func, ast.Attribute) and func.attr in _FORWARDS:
        owner = resolver.value_of(func.value, scope) if scope is not None else resolver.value_of(func.value)
        if owner is not None and owner[0] == "module" or func.attr == "generate" \
                or func.attr == "forward" and owner is None:   # ``self.model.forward(tokens, state)``
            return [(a, f"{func.attr}()", None) for a in arguments]
        return []
    if isinstance(func, ast.Attribute) and func.attr not in _MODULE_API and not func.attr.startswith("_") \
            and isinstance(func.value, (ast.Name, ast.Attribute)):
        owner = resolver.value_of(func.value, scope) if scope is not None else resolver.value_of(func.value)
        if owner is not None and owner[0] == "module" and len(owner) > 1 and isinstance(owner[1], str) \
                and not owner[1].startswith("torch."):
            # ``self.face_det.detect_faces(img)``: a method of the project's own model, given the input
            return [(a, f"{func.attr}() of the model", None) for a in node.args[:1]]
    if not handoffs:
        return []
    entry = grad_free_callee(resolver, node, scope)
    if entry is not None:
        name, inputs = entry
        sink = f"{name}(), which runs its model on it without gradients"
        wanted = {index for _, index in inputs if index >= 0}
        return [(a, sink, None) for i, a in enumerate(node.args) if i in wanted and not isinstance(a, ast.Starred)] \
            + [(kw.value, sink, None) for kw in node.keywords if kw.arg in {n for n, _ in inputs}]
    helper, offset = _handed_to(node, function, ctx)
    if helper is None:
        return []
    positional = [a.arg for a in helper.args.posonlyargs + helper.args.args][offset:]
    given = [(a, positional[i]) for i, a in enumerate(node.args) if i < len(positional)]
    given += [(kw.value, kw.arg) for kw in node.keywords if kw.arg]
    sink = f"{helper.name}(), which takes it to the device or a model"
    return [(argument, sink, (helper, parameter)) for argument, parameter in given]


def uses_on_device(helper: ast.FunctionDef, parameter: str, ctx: FileContext, depth: int = 0) -> bool:
    """The file's function ``helper`` brings its parameter (kept whole) into device compute: moves it, calls a model
    with it, or hands it on to a function of the file that does (two deep); or runs a model on it as NPU417 reads
    it."""
    memo = ctx.scratch.setdefault("natural_helpers", {})
    key = (id(helper), parameter)
    if key not in memo:
        memo[key] = False   # recursion stops here
        memo[key] = _uses_on_device(helper, parameter, ctx, depth)
    return memo[key]


def _uses_on_device(helper: ast.FunctionDef, parameter: str, ctx: FileContext, depth: int) -> bool:
    resolver = ctx.resolver
    scope = resolver.scopes.scope_of(helper) if resolver.scopes is not None else None
    if scope is None:
        return False
    for call in walk(helper):
        if not isinstance(call, ast.Call) or ctx.enclosing_any(call, FUNCTION_TYPES) is not helper:
            continue
        for value, _, handed in _entering(call, ctx):
            if natural_source(resolver, value, scope, parameter=(helper, parameter)) is None:
                continue
            if handed is None or depth < 2 and uses_on_device(handed[0], handed[1], ctx, depth + 1):
                return True
    return _runs_model(helper, helper, ctx, 1, {parameter})


def _host_module(func: ast.AST, function: Optional[ast.AST], ctx: FileContext) -> bool:
    """``mel = MelSpec(...)`` built in this function, given no device and never moved: a module on the CPU (a
    feature extractor of the data preparation), not device compute."""
    if not isinstance(func, ast.Name) or function is None:
        return False
    built = False
    for child in walk(function):
        if isinstance(child, ast.Assign) and any(isinstance(t, ast.Name) and t.id == func.id for t in child.targets):
            if not isinstance(child.value, ast.Call) or any(kw.arg == "device" for kw in child.value.keywords) \
                    or isinstance(child.value.func, ast.Attribute) and child.value.func.attr in _MOVES:
                return False
            built = True
        elif isinstance(child, ast.Attribute) and child.attr in _MOVES and isinstance(child.value, ast.Name) \
                and child.value.id == func.id:
            return False
    return built


def _to_device(node: ast.Call, ctx: FileContext) -> bool:
    """``x.to(device)`` moves ``x`` (not ``x.to(torch.float32)`` / ``x.to(dtype=...)`` / ``x.to(other)``'s dtype
    alone)."""
    if any(kw.arg == "device" for kw in node.keywords):
        return True
    if not node.args:
        return False
    first = node.args[0]
    name = ctx.resolver.qualname(first)
    if name and name.startswith("torch.") and name.rsplit(".", 1)[-1] in _DTYPES:
        return False
    return not (isinstance(first, ast.Attribute) and first.attr == "dtype")
