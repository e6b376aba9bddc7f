"""Plugin entry point: run gatebench's Stop hook straight from a checkout, with no pip install.

The hook is standard library only, so putting the checkout on sys.path is all it needs.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from gatebench.hook.__main__ import main  # noqa: E402

sys.exit(main(sys.argv[1:]))
