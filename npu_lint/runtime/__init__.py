"""Code that runs in the user's environment, not in npu-lint's: copied into the report folder as source.

``hook.py`` becomes ``<name>_analysis/msft_dynamic_analysis/hook.py`` (``npu-lint analyse -m dynamic_shape``).
Importing this package imports nothing else (``hook`` needs torch; npu-lint itself does not).
"""
