from versionkit import Version, latest, max_satisfying, sort_versions

V = Version.parse


def test_sort_versions_parses_strings():
    assert sort_versions(["1.10.0", "1.2.0", V("1.9.0")]) == [V("1.2.0"), V("1.9.0"), V("1.10.0")]


def test_sort_versions_orders_numeric_prerelease_parts():
    got = [str(v) for v in sort_versions(["1.0.0-rc.10", "1.0.0-rc.2", "0.9.0"])]
    assert got == ["0.9.0", "1.0.0-rc.2", "1.0.0-rc.10"]


def test_sort_versions_keeps_input_order_of_equal_versions():
    got = [str(v) for v in sort_versions(["1.0.0+b", "0.1.0", "1.0.0+a"])]
    assert got == ["0.1.0", "1.0.0+b", "1.0.0+a"]


def test_latest_skips_prereleases_by_default():
    assert latest(["1.2.0", "1.3.0-beta.1", "1.2.5"]) == V("1.2.5")
    assert latest(["1.2.0", "1.3.0-beta.1", "1.2.5"], include_prerelease=True) == V("1.3.0-beta.1")


def test_latest_of_nothing_is_none():
    assert latest([]) is None
    assert latest(["2.0.0-alpha"]) is None


def test_max_satisfying():
    offered = ["1.2.0", "2.0.1", "1.9.9", "1.10.0-beta"]
    assert max_satisfying(offered, ">=1.2.0, <2.0.0") == V("1.9.9")
    assert max_satisfying(offered, "^1.0.0", include_prerelease=True) == V("1.10.0-beta")
    assert max_satisfying(offered, ">=3.0.0") is None
