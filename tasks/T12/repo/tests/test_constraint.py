import pytest

from versionkit import Constraint, InvalidConstraint


def allows(text, version, **kw):
    return Constraint.parse(text).allows(version, **kw)


@pytest.mark.parametrize(("version", "ok"), [
    ("1.2.0", True), ("1.9.9", True), ("2.0.0", False), ("1.1.9", False),
])
def test_range(version, ok):
    assert allows(">=1.2.0, <2.0.0", version) is ok


@pytest.mark.parametrize(("text", "version", "ok"), [
    ("^1.2.3", "1.9.0", True),
    ("^1.2.3", "2.0.0", False),
    ("^0.2.3", "0.2.9", True),
    ("^0.2.3", "0.3.0", False),
    ("^0.0.3", "0.0.4", False),
    ("~1.2.3", "1.2.9", True),
    ("~1.2.3", "1.3.0", False),
])
def test_caret_and_tilde(text, version, ok):
    assert allows(text, version) is ok


def test_exact_star_and_not_equal():
    assert allows("1.2.3", "1.2.3")
    assert not allows("1.2.3", "1.2.4")
    assert allows("*", "0.0.1")
    assert not allows("!=1.2.3, >=1.0.0", "1.2.3")


def test_prereleases_need_to_be_asked_for():
    assert not allows(">=1.0.0-rc.1", "1.0.0-rc.2")
    assert allows(">=1.0.0-rc.1", "1.0.0-rc.2", include_prerelease=True)


def test_numeric_prerelease_parts_in_constraints():
    assert allows(">=1.0.0-rc.2", "1.0.0-rc.10", include_prerelease=True)


@pytest.mark.parametrize("text", ["", ">=1.2.0,", ">=1.2", "^x", ">=1.2.0, , <2.0.0"])
def test_invalid(text):
    with pytest.raises(InvalidConstraint):
        Constraint.parse(text)
