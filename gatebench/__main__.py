import sys

from gatebench.cli import main

sys.exit(main())
