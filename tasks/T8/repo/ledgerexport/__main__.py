import sys

from ledgerexport.cli import main

sys.exit(main())
