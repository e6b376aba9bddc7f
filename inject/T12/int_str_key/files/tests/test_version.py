import pytest

from versionkit import InvalidVersion, Version

V = Version.parse


def test_parse_all_parts():
    v = V("1.4.0-beta.2+ci.881")
    assert (v.major, v.minor, v.patch, v.prerelease, v.build) == (1, 4, 0, "beta.2", "ci.881")
    assert str(v) == "1.4.0-beta.2+ci.881"
    assert v.is_prerelease


def test_parse_accepts_leading_v_and_spaces():
    assert V(" v2.0.1 ") == Version(2, 0, 1)
    assert str(V("v2.0.1")) == "2.0.1"


@pytest.mark.parametrize("text", ["1.2", "1.2.3.4", "01.2.3", "1.02.3", "1.2.3-", "1.2.3+", "1.2.3-rc..1",
                                  "1.0.0-rc.01", "1.2.3-beta_1", "", "latest"])
def test_parse_rejects(text):
    with pytest.raises(InvalidVersion):
        V(text)


def test_parse_rejects_non_strings():
    with pytest.raises(TypeError):
        V(None)


def test_core_parts_compare_as_numbers():
    assert V("1.2.3") < V("1.10.0") < V("2.0.0")
    assert sorted([V("1.10.0"), V("1.9.0"), V("1.9.10")]) == [V("1.9.0"), V("1.9.10"), V("1.10.0")]


def test_prerelease_sorts_before_release():
    assert V("1.0.0-rc.1") < V("1.0.0")


def test_numeric_prerelease_parts_compare_as_numbers():
    assert V("1.0.0-rc.2") < V("1.0.0-rc.10")


def test_bumps():
    assert V("1.2.3").bump_patch() == V("1.2.4")
    assert V("1.2.3-rc.1").bump_patch() == V("1.2.3")
    assert V("1.2.3").bump_minor() == V("1.3.0")
    assert V("1.2.3-rc.1").bump_major() == V("2.0.0")


def test_with_prerelease_and_build():
    v = V("1.2.3").with_prerelease("rc.1").with_build("sha.5114f85")
    assert str(v) == "1.2.3-rc.1+sha.5114f85"
    assert str(v.release()) == "1.2.3"
    with pytest.raises(InvalidVersion):
        V("1.2.3").with_prerelease("rc.01")
