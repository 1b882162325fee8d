"""Code that runs in the user's environment, not in npu-lint's: copied into the report folder as source.

``hook.py`` and the modules it imports (``calls.py``: which calls are recorded; ``paths.py``: which call site a
call is; ``shapes.py``: shapes and their ranges; ``sites.py``: call sites and report cells) become
``<name>_analysis/msft_dynamic_analysis/*.py`` (``npu-lint analyse -m dynamic_shape``). They import one another
relatively, so the copy is self-contained.
Importing this package imports nothing else (``hook`` needs torch; npu-lint itself does not).
"""
