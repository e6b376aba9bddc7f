"""`gatebench task import`: a bench task from one commit of a repository's own history (as SWE-bench builds them).

The commit's parent is the base; the commit's versions of the test files it added or changed are the
hidden tests, laid at their original paths (oracle layout `original`) with the parent's pytest harness;
its other changes are the reference. The import reads as named steps:

1. `environment`: an interpreter the project admits, the environment resolved from its own metadata and
   test files (`taskenv.resolve`), built, and tried on the commit's hidden tests; another admitted
   interpreter when these do not collect.
2. `measure`: the hidden tests twice on the parent, twice on the commit and once more on the commit under
   CPU load; FAIL_TO_PASS and PASS_TO_PASS are the tests whose outcome never varied; the others are named.
3. the reference, the prompt (and the check that it states what the hidden tests pin), the visible tests
   (with the ones that fail on the base or under load deselected, named).
4. `make_injections`: noop, wrong fixes made from the fix itself (`mutants`), a tamper; each judged by the
   real hook, which fills in what it fails and which gates block it.

A recipe of the real suite (`recipes.py`) passes `Facts`: what an earlier import measured. Then nothing is
measured or judged again: the files are laid and selftest proves them.

Git is touched only through `git.py` (`_git` and `export_tree`); everything else is plain data and files.
"""

from gatebench.bench.taskimport.check import check_task
from gatebench.bench.taskimport.files import DEFAULT_TEST_GLOBS
from gatebench.bench.taskimport.measure import measure_sets, prove_canaries
from gatebench.bench.taskimport.pipeline import Facts, ImportResult, import_task
from gatebench.bench.taskimport.runs import PYTEST

__all__ = ["DEFAULT_TEST_GLOBS", "PYTEST", "Facts", "ImportResult", "check_task", "import_task", "measure_sets",
           "prove_canaries"]
