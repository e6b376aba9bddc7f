"""`gatebench task import`: a bench task from one commit of a repository's own history (as SWE-bench builds them).

The commit's parent is the base; the commit's versions of the test files it added or changed are the
hidden tests, laid at their original paths (oracle layout `original`) with the parent's pytest harness;
its other changes are the reference. The import (`pipeline.import_task`) reads as named steps, each
handing the next plain data (`Commit`, `Trees`, `Built`, `Measured`, `Prompt`, `Visible`):

1. fetch the commit (`read_changes`, `fetch_commit`): its changes split into tests and fix, both trees
   exported, the hidden tests laid (`git`, `files`).
2. build the environment (`build_environment`; `environment`): an interpreter the project admits, the
   environment resolved from its own metadata and test files (`taskenv.resolve`), built, and tried on the
   commit's hidden tests; another admitted interpreter when these do not collect.
3. measure the tests (`measure_tests`; `measure`): the hidden tests twice on the parent, twice on the commit
   and once more on the commit under CPU load; FAIL_TO_PASS and PASS_TO_PASS are the tests whose outcome
   never varied; the others are named. Then the canary proof.
4. the reference, the prompt (and `check_prompt`: does it state what the hidden tests pin), the visible
   tests (`visible`: the ones that fail on the base or under load deselected, named).
5. make the injections (`injections_of`; `injections`): noop, wrong fixes made from the fix itself
   (`mutants`), a tamper; each judged by the real hook, which fills in what it fails and which gates block it.
6. write the task (`write_task`, `add_impossible_variant`, `publish`): all of it staged, then moved into
   the bench home.

A recipe of the real suite (`recipes.py`) passes `Facts`: what an earlier import measured. Then nothing is
measured or judged again: the files are laid and selftest proves them.

Git is touched only through `git.py` (`_git` and `export_tree`); everything else is plain data and files.
"""

from gatebench.suite.taskimport.check import check_task
from gatebench.suite.taskimport.files import DEFAULT_TEST_GLOBS
from gatebench.suite.taskimport.measure import measure_sets, prove_canaries
from gatebench.suite.taskimport.pipeline import Facts, ImportResult, import_task
from gatebench.suite.taskimport.runs import PYTEST

__all__ = ["DEFAULT_TEST_GLOBS", "PYTEST", "Facts", "ImportResult", "check_task", "import_task", "measure_sets",
           "prove_canaries"]
