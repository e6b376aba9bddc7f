"""SemVer 2.0.0 precedence (section 11) across versionkit. Expected orders are written out by hand."""

import random
from itertools import pairwise

from versionkit import Constraint, Version, latest, max_satisfying, sort_versions
from versionkit.__main__ import main

V = Version.parse

# The example chain from the SemVer 2.0.0 text, lowest first.
SPEC_CHAIN = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
              "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0"]


def strictly_increasing(texts):
    vs = [V(t) for t in texts]
    for lo, hi in pairwise(vs):
        assert lo < hi and hi > lo and not hi < lo and lo != hi, (str(lo), str(hi))


def test_prerelease_ranks_below_its_release():
    strictly_increasing(["0.9.9", "1.0.0-rc.1", "1.0.0", "1.0.1-alpha", "1.0.1"])
    strictly_increasing(["2.0.0-0", "2.0.0"])
    assert max([V("3.1.0"), V("3.1.0-rc.2")]) == V("3.1.0")
    assert V("1.0.0") >= V("1.0.0-rc.1")


def test_numeric_identifiers_compare_as_numbers():
    strictly_increasing(["1.0.0-alpha.2", "1.0.0-alpha.10"])
    strictly_increasing(["1.0.0-rc.9", "1.0.0-rc.11", "1.0.0-rc.100"])
    strictly_increasing(["1.0.0-2", "1.0.0-10"])
    strictly_increasing(["1.0.0-1.9.x", "1.0.0-1.10.a"])


def test_numeric_identifier_ranks_below_alphanumeric():
    strictly_increasing(["1.0.0-alpha.1", "1.0.0-alpha.beta"])
    strictly_increasing(["1.0.0-99999", "1.0.0-a"])
    strictly_increasing(["1.0.0-rc.7", "1.0.0-rc.7a"])


def test_alphanumeric_identifiers_compare_in_ascii_order():
    # Upper case sorts before lower case; digits inside text compare as characters, not as a number.
    strictly_increasing(["1.0.0-Beta", "1.0.0-alpha"])
    strictly_increasing(["1.0.0-RC.1", "1.0.0-rc.1"])
    strictly_increasing(["1.0.0-alpha10", "1.0.0-alpha2"])


def test_longer_identifier_list_ranks_higher():
    strictly_increasing(["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.1.0"])
    strictly_increasing(["1.0.0-rc", "1.0.0-rc.beta"])


def test_semver_example_chain():
    strictly_increasing(SPEC_CHAIN)
    shuffled = list(SPEC_CHAIN)
    random.Random(12).shuffle(shuffled)
    assert [str(v) for v in sorted(V(t) for t in shuffled)] == SPEC_CHAIN
    assert [str(v) for v in sorted((V(t) for t in shuffled), reverse=True)] == SPEC_CHAIN[::-1]


def test_build_metadata_ignored_for_precedence():
    a, b = V("1.0.0+build.2"), V("1.0.0+build.10")
    assert a == b and not a < b and not b < a and a <= b and a >= b
    assert hash(a) == hash(b) == hash(V("1.0.0"))
    assert len({a, b, V("1.0.0")}) == 1
    assert V("1.0.0-rc.1+zzz") < V("1.0.0+aaa")
    assert V("1.0.0-beta.2+exp.sha.5114f85") < V("1.0.0-beta.11")
    assert str(a) == "1.0.0+build.2" and str(V("1.0.0-rc.1+zzz")) == "1.0.0-rc.1+zzz"


def test_constraints_use_semver_precedence():
    def allows(text, version):
        return Constraint.parse(text).allows(version, include_prerelease=True)

    assert not allows(">=1.0.0", "1.0.0-rc.1")
    assert allows("<1.0.0", "1.0.0-rc.1")
    assert allows(">1.0.0-beta.2", "1.0.0-beta.11")
    assert not allows("<=1.0.0-beta.2", "1.0.0-beta.11")
    assert allows(">1.0.0-alpha.1, <1.0.0-beta", "1.0.0-alpha.beta")
    assert allows("==1.0.0", "1.0.0+build.7")
    assert not allows("!=1.0.0+a", "1.0.0+b")


def test_sort_versions_uses_semver_precedence():
    got = sort_versions(["1.0.0", "1.0.0-rc.1", "1.0.0-beta.11", "0.9.0", "1.0.0-beta.2", "1.0.0-alpha.beta",
                         "1.0.0-alpha.1"])
    assert [str(v) for v in got] == ["0.9.0", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta.2",
                                     "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0"]
    got = sort_versions(["2.0.0-rc.1", "2.0.0+b", "2.0.0-rc.1+x", "2.0.0+a"], reverse=True)
    assert [str(v) for v in got][:2] in (["2.0.0+b", "2.0.0+a"], ["2.0.0+a", "2.0.0+b"])
    assert {str(v) for v in got[2:]} == {"2.0.0-rc.1", "2.0.0-rc.1+x"}


def test_latest_prefers_release_over_its_prerelease():
    assert latest(["2.0.0-rc.1", "2.0.0", "1.9.0"], include_prerelease=True) == V("2.0.0")
    assert str(latest(["2.0.0", "2.0.0-rc.1"], include_prerelease=True)) == "2.0.0"
    assert str(latest(["2.0.0-beta.2", "2.0.0-beta.11", "1.9.0"], include_prerelease=True)) == "2.0.0-beta.11"
    assert str(latest(["2.0.0-beta.2", "2.0.0-beta.11", "1.9.0"])) == "1.9.0"


def test_max_satisfying_uses_semver_precedence():
    offered = ["1.0.0-rc.1", "1.0.0", "1.0.0-beta.11", "1.0.0-beta.2", "2.0.0-alpha"]
    assert str(max_satisfying(offered, "<1.5.0", include_prerelease=True)) == "1.0.0"
    assert str(max_satisfying(offered, "<1.0.0", include_prerelease=True)) == "1.0.0-rc.1"
    assert str(max_satisfying(offered, "<1.0.0-rc.1", include_prerelease=True)) == "1.0.0-beta.11"
    assert str(max_satisfying(offered, "^1.0.0")) == "1.0.0"


def test_cli_sort_prints_semver_order(capsys):
    assert main(["sort", "1.0.0", "1.0.0-rc.1", "1.0.0-beta.11", "1.0.0-beta.2"]) == 0
    assert capsys.readouterr().out.split() == ["1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0"]
    assert main(["sort", "--reverse", "1.0.0-alpha.10", "1.0.0", "1.0.0-alpha.2"]) == 0
    assert capsys.readouterr().out.split() == ["1.0.0", "1.0.0-alpha.10", "1.0.0-alpha.2"]
    assert main(["latest", "--pre", "3.0.0-rc.2", "3.0.0"]) == 0
    assert capsys.readouterr().out.strip() == "3.0.0"
