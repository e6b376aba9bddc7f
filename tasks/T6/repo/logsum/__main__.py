import sys

from logsum.cli import main

sys.exit(main())
