"""``python -m npu_lint``."""
import sys

from npu_lint.entry import main

sys.exit(main())
