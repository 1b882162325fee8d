"""``python -m npu_lint``."""
import sys

from npu_lint.cli import main

sys.exit(main())
