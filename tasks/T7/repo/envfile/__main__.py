import sys

from envfile.cli import main

sys.exit(main())
