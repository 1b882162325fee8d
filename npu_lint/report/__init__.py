"""``npu-lint analyse``: the vendor's report layout (``<name>_analysis/``), built from the core's findings."""
